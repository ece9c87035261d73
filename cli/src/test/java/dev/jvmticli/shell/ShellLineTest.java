package dev.jvmticli.shell;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jvmticli.failure.CliFailure;
import dev.jvmticli.shell.ShellLine.Pipeline;
import java.util.List;
import org.junit.jupiter.api.Test;

class ShellLineTest {
    @Test
    void wordsSplitLikeAPosixShell() {
        Pipeline p = ShellLine.parse("threads --name 'pool *' --state \"A \\\"B\\\"\" x\\ y").get(0);
        assertEquals(List.of("threads", "--name", "pool *", "--state", "A \"B\"", "x y"), p.words());
        assertTrue(p.greps().isEmpty());
        assertNull(p.file());
    }

    @Test
    void semicolonsSeparateCommandsAndCommentsAndBlankLinesAreNothing() {
        List<Pipeline> all = ShellLine.parse("threads --top 3;detach ; list  # and a comment");
        assertEquals(3, all.size());
        assertEquals(List.of("threads", "--top", "3"), all.get(0).words());
        assertEquals(List.of("detach"), all.get(1).words());
        assertEquals(List.of("list"), all.get(2).words());
        assertTrue(ShellLine.parse("   ").isEmpty());
        assertTrue(ShellLine.parse("# only a comment").isEmpty());
        assertEquals(List.of("threads", "--name", "a#b"), ShellLine.parse("threads --name a#b").get(0).words());
    }

    @Test
    void grepsFilterLinesAndTheRedirectComesLast() {
        Pipeline p = ShellLine.parse("threads|grep -i blocked | grep -v 'demo-blocked-2' >> out.txt").get(0);
        assertEquals(List.of("threads"), p.words());
        assertEquals(2, p.greps().size());
        assertTrue(p.greps().get(0).keeps("17 BLOCKED x"));
        assertFalse(p.greps().get(0).keeps("RUNNABLE"));
        assertFalse(p.greps().get(1).keeps("demo-blocked-2"));
        assertTrue(p.greps().get(1).keeps("demo-blocked-1"));
        assertEquals("out.txt", p.file());
        assertTrue(p.append());

        Pipeline quotedOperators = ShellLine.parse("threads --name 'a|b;c>d' > 'my file'").get(0);
        assertEquals(List.of("threads", "--name", "a|b;c>d"), quotedOperators.words());
        assertEquals("my file", quotedOperators.file());
        assertFalse(quotedOperators.append());
    }

    @Test
    void syntaxErrorsAreUsageFailures() {
        for (String bad : new String[] {"threads 'open", "threads \"open", "; threads", "| grep x", "threads | sort",
                "threads | grep", "threads | grep a b", "threads >", "threads > a > b", "threads > a | grep x", "threads | grep '('"}) {
            CliFailure failure = assertThrows(CliFailure.class, () -> ShellLine.parse(bad), bad);
            assertEquals(2, failure.exitCode().code(), bad);
        }
    }

    @Test
    void clipCutsLinesToTheWidth() {
        assertEquals("abc\nde\n", Shell.clip("abcdef\nde\n", 3));
        assertEquals("abcdef", Shell.clip("abcdef", 0));
        assertEquals("\uD83D\uDE80a", Shell.clip("\uD83D\uDE80ab", 2));
    }
}
