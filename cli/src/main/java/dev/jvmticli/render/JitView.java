package dev.jvmticli.render;

import dev.jvmticli.client.JitReport;
import dev.jvmticli.client.MethodRef;
import java.io.PrintWriter;
import java.util.List;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/** The `jit` listing: compiled methods and generated stubs with their code ranges. */
public final class JitView {
    private JitView() {
    }

    /** A compiled method, named as Java writes it, with the methods inlined into it. */
    public record CompiledRow(String className, String method, String signature, long start, long end, long size,
                              List<String> inlined) {
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
                    return new CompiledRow(JvmNames.className(m.classSignature()), m.name() == null ? "?" : m.name(),
                            m.signature(), c.start(), c.start() + c.size(), c.size(), inlined);
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

    public static void print(PrintWriter out, List<CompiledRow> compiled, List<StubRow> stubs) {
        if (!compiled.isEmpty()) {
            Table table = new Table("START", "END", "SIZE", "INLINED", "METHOD").alignRight(2, 3);
            compiled.forEach(c -> table.add(hex(c.start()), hex(c.end()), Long.toString(c.size()), Integer.toString(c.inlined().size()),
                    c.className() + "." + c.method() + (c.signature() == null ? "" : c.signature())
                            + (c.inlined().isEmpty() ? "" : "  inlines " + c.inlined().stream().collect(Collectors.joining(", ")))));
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
