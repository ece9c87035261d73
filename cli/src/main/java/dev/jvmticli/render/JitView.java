package dev.jvmticli.render;

import dev.jvmticli.client.JitReport;
import dev.jvmticli.client.MethodRef;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/** The `jit` listing: compiled methods and generated stubs with their code ranges. */
public final class JitView {
    private JitView() {
    }

    /** How many inlined methods the table lists under a method; --json lists them all. */
    static final int INLINED_SHOWN = 5;

    /**
     * A piece of compiled code of a method, named as Java writes it: its compilation tier (0 a
     * native wrapper, 1-3 C1, 4 C2) and whether it is an OSR entry (and at which bci), each null
     * when unknown; and the methods inlined into it, of which the agent kept only some when inlinedPartial.
     */
    public record CompiledRow(String className, String method, String signature, long start, long end, long size,
                              Integer compileId, Integer tier, Boolean osr, Integer osrBci, List<String> inlined,
                              boolean inlinedPartial) {
    }

    /** A piece of generated code: the interpreter, a stub, an adapter. */
    public record StubRow(String name, long start, long end, long size) {
    }

    /** The methods, with filter applied to (class name, method name). */
    public static List<CompiledRow> compiled(JitReport report, Predicate<CompiledRow> filter) {
        List<MethodRef> methods = report.methods();
        return report.compiled().stream()
                .map(c -> {
                    MethodRef m = c.method() >= 0 && c.method() < methods.size() ? methods.get(c.method()) : new MethodRef(null, null, null);
                    List<String> inlined = c.inlined().stream().map(i -> {
                        MethodRef r = i >= 0 && i < methods.size() ? methods.get(i) : new MethodRef(null, null, null);
                        return JvmNames.className(r.classSignature()) + "." + r.name() + (r.signature() == null ? "" : r.signature());
                    }).toList();
                    Boolean osr = c.entryBci() == null ? null : c.entryBci() >= 0;
                    return new CompiledRow(JvmNames.className(m.classSignature()), m.name() == null ? "?" : m.name(),
                            m.signature(), c.start(), c.start() + c.size(), c.size(), c.compileId(), c.level(), osr,
                            Boolean.TRUE.equals(osr) ? c.entryBci() : null, inlined, c.inlinedPartial());
                })
                .filter(filter)
                .toList();
    }

    public static List<StubRow> stubs(JitReport report, Predicate<StubRow> filter) {
        return report.stubs().stream()
                .map(s -> new StubRow(s.name(), s.start(), s.start() + s.size(), s.size()))
                .filter(filter)
                .toList();
    }

    private static String hex(long address) {
        return "0x" + Long.toHexString(address);
    }

    /** 4 C2, 3 C1, ..., 0 native (a native method's wrapper), ? when unknown. */
    static String tier(Integer level) {
        if (level == null) {
            return "?";
        }
        return level + (level == 0 ? " native" : level == 4 ? " C2" : level <= 3 ? " C1" : "");
    }

    /** @bci for an OSR entry, - for the method's normal entry, ? when unknown. */
    static String osr(CompiledRow row) {
        return row.osr() == null ? "?" : row.osr() ? "@" + row.osrBci() : "-";
    }

    static String method(CompiledRow c) {
        return c.className() + "." + c.method() + (c.signature() == null ? "" : c.signature());
    }

    /** At most INLINED_SHOWN inlined methods, one a line, indented to go under the method. */
    static List<String> inlinedLines(CompiledRow c) {
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < Math.min(INLINED_SHOWN, c.inlined().size()); i++) {
            lines.add((i == 0 ? "    inlines " : "            ") + c.inlined().get(i));
        }
        int more = c.inlined().size() - Math.min(INLINED_SHOWN, c.inlined().size());
        if (c.inlinedPartial()) {
            lines.add("            and more than " + more + " more (the agent keeps the first " + c.inlined().size() + ")");
        } else if (more > 0) {
            lines.add("            and " + more + " more (--json lists them all)");
        }
        return lines;
    }

    public static void print(PrintWriter out, List<CompiledRow> compiled, List<StubRow> stubs) {
        if (!compiled.isEmpty()) {
            Table table = new Table("START", "END", "SIZE", "TIER", "OSR", "INLINED", "METHOD").alignRight(2, 5);
            compiled.forEach(c -> table.add(inlinedLines(c), hex(c.start()), hex(c.end()), Long.toString(c.size()), tier(c.tier()), osr(c),
                    c.inlined().size() + (c.inlinedPartial() ? "+" : ""), method(c)));
            table.print(out);
        }
        if (!stubs.isEmpty()) {
            if (!compiled.isEmpty()) {
                out.println();
            }
            Table table = new Table("START", "END", "SIZE", "STUB").alignRight(2);
            stubs.forEach(s -> table.add(hex(s.start()), hex(s.end()), Long.toString(s.size()), s.name()));
            table.print(out);
        }
        out.flush();
    }
}
