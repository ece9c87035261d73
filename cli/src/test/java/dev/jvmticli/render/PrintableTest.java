package dev.jvmticli.render;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jvmticli.client.Frame;
import dev.jvmticli.client.StackDump;
import dev.jvmticli.client.ThreadEntry;
import dev.jvmticli.client.ThreadStack;
import dev.jvmticli.client.WaitingFor;
import dev.jvmticli.testing.ControlCharacters;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;

class PrintableTest {
    @Test
    void controlCharactersAreWrittenOutVisibly() {
        assertEquals("a\\nb\\rc\\td\\ee\\af\\0g", Printable.text("a\nb\rc\td\u001be\u0007f\u0000g"));
        assertEquals("\\x01\\x08\\x0b\\x1f\\x7f", Printable.text("\u0001\b\u000b\u001f\u007f"));
        assertEquals("c1 \\u{0080}\\u{009b}\\u{009f}", Printable.text("c1 \u0080\u009b\u009f"), "C1 controls, CSI among them");
        assertEquals("\\u{202e}gnp.exe \\u{2028}\\u{feff}", Printable.text("\u202egnp.exe \u2028\ufeff"), "bidi override, line separator, BOM");
        assertEquals("lone \\u{d800}", Printable.text("lone \ud800"));
    }

    @Test
    void aBackslashIsDoubledSoTheEscapedFormReadsOneWay() {
        assertEquals("a\\\\nb", Printable.text("a\\nb"), "a name holding a backslash and an n");
        assertEquals("a\\nb", Printable.text("a\nb"), "a name holding a newline");
    }

    @Test
    void printableTextIsTheSameString() {
        String name = "pool-1-thread-3 Ärger 中文 😀 <tag> \"q\"";
        assertSame(name, Printable.text(name));
    }

    @Test
    void jstackTextKeepsOneLinePerFrameWhateverTheNames() {
        ThreadEntry thread = new ThreadEntry(9, "evil\n\"forged\" #1 prio=5\n\tat x.Y.z(Y.java:1)\u001b]0;t\u0007", "BLOCKED",
                List.of(), false, 5, "main", -1, 0, false, null);
        ThreadStack stack = new ThreadStack(thread, List.of(new Frame("p.C\nlass", "m\u001b[2J", "F\r.java", 3, false, "mod\u0085")), false,
                List.of(), new WaitingFor("enter", "L\u0000ock", 0x10, 2));
        StringWriter text = new StringWriter();
        MonitorsText.printByThread(new PrintWriter(text), new StackDump(0, "jvmti", true, List.of(stack)));
        DeadlockText.printSections(new PrintWriter(text), List.of(List.of(stack)), new StackDump(0, "jvmti", true, List.of(stack)));
        String out = text.toString();
        assertNull(ControlCharacters.firstRaw(out), out);
        assertTrue(out.contains("\"evil\\n\"forged\" #1 prio=5\\n\\tat x.Y.z(Y.java:1)\\e]0;t\\a\""), out);
        assertTrue(out.contains("p.C\\nlass.m\\e[2J(mod\\u{0085}/F\\r.java:3)"), out);
        assertTrue(out.contains("(a L\\0ock)"), out);
    }
}
