package dev.jvmticli.render;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.jvmticli.render.JitView.CompiledRow;
import java.util.List;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

class JitViewTest {
    private static CompiledRow row(Boolean osr, Integer bci, List<String> inlined) {
        return new CompiledRow("a.B", "m", "()V", 16, 32, 16, 7, 4, osr, bci, inlined, false);
    }

    @Test
    void tiersNameTheirCompiler() {
        assertEquals("4 C2", JitView.tier(4));
        assertEquals("3 C1", JitView.tier(3));
        assertEquals("1 C1", JitView.tier(1));
        assertEquals("0 native", JitView.tier(0));
        assertEquals("?", JitView.tier(null));
    }

    @Test
    void osrEntriesShowTheirBci() {
        assertEquals("@12", JitView.osr(row(true, 12, List.of())));
        assertEquals("-", JitView.osr(row(false, null, List.of())));
        assertEquals("?", JitView.osr(row(null, null, List.of())));
    }

    /** The method's row cell and the lines under it, as the table prints them. */
    private static String methodCell(CompiledRow row) {
        return String.join("\n", Stream.concat(Stream.of(JitView.method(row)), JitView.inlinedLines(row).stream()).toList());
    }

    @Test
    void inlinedMethodsAreOneALineAndBounded() {
        assertEquals("a.B.m()V", methodCell(row(false, null, List.of())));
        assertEquals("a.B.m()V\n    inlines x.Y.f()V\n            x.Y.g()V", methodCell(row(false, null, List.of("x.Y.f()V", "x.Y.g()V"))));
        List<String> many = IntStream.range(0, 8).mapToObj(i -> "x.Y.f" + i + "()V").toList();
        String cell = methodCell(row(false, null, many));
        assertEquals(1 + JitView.INLINED_SHOWN + 1, cell.split("\n").length, cell);
        assertEquals("            and 3 more (--json lists them all)", cell.substring(cell.lastIndexOf('\n') + 1));
        CompiledRow partial = new CompiledRow("a.B", "m", "()V", 16, 32, 16, 7, 4, false, null, many, true);
        String capped = methodCell(partial);
        assertEquals("            and more than 3 more (the agent keeps the first 8)", capped.substring(capped.lastIndexOf('\n') + 1));
    }
}
