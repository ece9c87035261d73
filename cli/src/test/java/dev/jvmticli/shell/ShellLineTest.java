package dev.jvmticli.shell;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jvmticli.failure.CliFailure;
import dev.jvmticli.failure.OutputClosed;
import dev.jvmticli.shell.ShellLine.Pipeline;
import java.util.List;
import org.junit.jupiter.api.Test;

class ShellLineTest {
    @Test
    void wordsSplitLikeAPosixShell() {
        Pipeline p = ShellLine.parse("threads --name 'pool *' --state \"A \\\"B\\\"\" x\\ y").get(0);
        assertEquals(List.of("threads", "--name", "pool *", "--state", "A \"B\"", "x y"), p.words());
        assertTrue(p.filters().isEmpty());
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
        assertEquals(2, p.filters().size());
        assertTrue(((ShellLine.Grep) p.filters().get(0)).keeps("17 BLOCKED x"));
        assertFalse(((ShellLine.Grep) p.filters().get(0)).keeps("RUNNABLE"));
        assertFalse(((ShellLine.Grep) p.filters().get(1)).keeps("demo-blocked-2"));
        assertTrue(((ShellLine.Grep) p.filters().get(1)).keeps("demo-blocked-1"));
        assertEquals("out.txt", p.file());
        assertTrue(p.append());

        Pipeline quotedOperators = ShellLine.parse("threads --name 'a|b;c>d' > 'my file'").get(0);
        assertEquals(List.of("threads", "--name", "a|b;c>d"), quotedOperators.words());
        assertEquals("my file", quotedOperators.file());
        assertFalse(quotedOperators.append());
    }

    @Test
    void grepCountsInvertsIgnoresCaseAndNumbersLines() {
        List<String> input = List.of("NAME STATE", "main RUNNABLE", "owner BLOCKED", "Owner-2 WAITING", "other RUNNABLE");
        assertEquals(List.of("1"), run("grep -c owner", input));
        assertEquals(List.of("2"), run("grep -ic owner", input), "-c and -i together");
        assertEquals(List.of("3:owner BLOCKED", "4:Owner-2 WAITING"), run("grep -n -i owner", input));
        assertEquals(List.of("NAME STATE", "main RUNNABLE", "other RUNNABLE"), run("grep -vi owner", input));
        assertEquals(List.of("owner BLOCKED", "Owner-2 WAITING"), run("grep -E '[Oo]wner(-2)?'", input));
        assertEquals(List.of("0"), run("grep -c nobody", input), "a count of none is 0");
        assertEquals(List.of("-x"), run("grep -- -x", List.of("a", "-x")), "after --, a TEXT may start with -");
    }

    @Test
    void grepShowsContextAfterBeforeAndAroundWithDashesBetweenGroups() {
        List<String> input = List.of("a", "b", "X1", "c", "d", "e", "f", "X2", "X3", "g", "h");
        assertEquals(List.of("X1", "c", "--", "X2", "X3", "g"), run("grep -A 1 X", input));
        assertEquals(List.of("b", "X1", "--", "f", "X2", "X3"), run("grep -B1 X", input));
        assertEquals(List.of("a", "b", "X1", "c", "d", "e", "f", "X2", "X3", "g", "h"), run("grep -C 2 X", input), "groups that touch join");
        assertEquals(List.of("2-b", "3:X1", "4-c", "--", "7-f", "8:X2", "9:X3", "10-g"), run("grep -n -C 1 X", input), "context lines numbered with -");
        assertEquals(List.of("3"), run("grep -c -C 3 X", input), "a count has no context");
        assertEquals(List.of("X1", "c", "--", "X2", "X3", "g"), run("grep -B 0 -A 1 X", input));
        assertEquals(List.of("b", "X1", "c", "--", "f", "X2", "X3", "g"), run("grep -C1 -v '^[a-h]'", input), "-v with context");
    }

    @Test
    void headKeepsTheFirstLinesThenEndsTheCommandAndTailTheLast() {
        List<String> input = List.of("1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12");
        assertEquals(input.subList(0, 10), run("head", input.subList(0, 10)), "10 by default, and 10 lines end nothing");
        assertEquals(List.of("1", "2", "3"), run("head -n 3", input));
        assertEquals(List.of("1", "2"), run("head -2", input));
        assertEquals(List.of(), run("head -n 0", input));
        assertEquals(input.subList(2, 12), run("tail", input));
        assertEquals(List.of("11", "12"), run("tail -n 2", input));
        assertEquals(List.of("12"), run("tail -n1", input));
        assertEquals(List.of(), run("tail -n 0", input));
        assertEquals(List.of("1", "2"), run("tail -n 5", List.of("1", "2")));

        ShellLine.Run head = ShellLine.parse("threads | head -n 1").get(0).filters().get(0).run(line -> { });
        head.accept("1");
        assertFalse(head.satisfied());
        OutputClosed closed = assertThrows(OutputClosed.class, () -> head.accept("2"), "the line after ends the command");
        assertTrue(closed.readerGone(), "as a reader that went away: nothing to report");
        assertTrue(head.satisfied());
        head.accept("3"); // what the command writes on its way out is dropped, not thrown again
    }

    /** The lines the filter hands on, the line after a head's last one ending the input as it ends a command. */
    private static List<String> run(String filter, List<String> input) {
        List<String> out = new java.util.ArrayList<>();
        ShellLine.Run run = ShellLine.parse("threads | " + filter).get(0).filters().get(0).run(out::add);
        try {
            input.forEach(run::accept);
        } catch (OutputClosed closed) {
            assertTrue(run.satisfied(), filter);
        }
        run.end();
        run.end();
        return out;
    }

    @Test
    void syntaxErrorsAreUsageFailures() {
        for (String bad : new String[] {"threads 'open", "threads \"open", "; threads", "| grep x", "threads | sort",
                "threads | grep", "threads | grep a b", "threads >", "threads > a > b", "threads > a | grep x", "threads | grep '('",
                "threads | grep -F x", "threads | grep -c", "threads | grep -A x", "threads | grep -A", "threads | grep -C -1 x",
                "threads | head x", "threads | head -n", "threads | head -n -1", "threads | tail -c 5", "threads | tail -n 1 2",
                "threads | less", "threads | head -n 99999999999"}) {
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

    @Test
    void anUnfinishedLineSaysWhatItsLastWordIsFor() {
        assertEquals(new ShellLine.Unfinished(ShellLine.Place.COMMAND, List.of()), ShellLine.unfinished(""));
        assertEquals(new ShellLine.Unfinished(ShellLine.Place.COMMAND, List.of()), ShellLine.unfinished("thr"));
        assertEquals(new ShellLine.Unfinished(ShellLine.Place.COMMAND, List.of("threads", "--name")),
                ShellLine.unfinished("threads --name 'pool "));
        assertEquals(new ShellLine.Unfinished(ShellLine.Place.COMMAND, List.of("stacks")), ShellLine.unfinished("threads;stacks --"));
        assertEquals(new ShellLine.Unfinished(ShellLine.Place.COMMAND, List.of("stacks", "a b")), ShellLine.unfinished("detach ; stacks a\\ b "));
        assertEquals(ShellLine.Place.FILTER, ShellLine.unfinished("threads | gr").place());
        assertEquals(ShellLine.Place.FILTER, ShellLine.unfinished("threads |").place());
        assertEquals(ShellLine.Place.OTHER, ShellLine.unfinished("threads | grep x").place());
        assertEquals(ShellLine.Place.FILE, ShellLine.unfinished("threads >> /tm").place());
        assertEquals(ShellLine.Place.FILE, ShellLine.unfinished("threads>").place());
        assertEquals(ShellLine.Place.OTHER, ShellLine.unfinished("threads > out ").place());
    }

    @Test
    void watchTakesAnIntervalBeforeItsCommand() {
        assertEquals(new ShellLine.Watch(false, null, List.of("threads", "--top", "3")),
                ShellLine.Watch.of(List.of("watch", "threads", "--top", "3")));
        assertEquals(new ShellLine.Watch(true, "0.5", List.of("threads")), ShellLine.Watch.of(List.of("watch", "-n", "0.5", "threads")));
        assertEquals(new ShellLine.Watch(true, "5", List.of()), ShellLine.Watch.of(List.of("watch", "--interval", "5")));
        assertEquals(new ShellLine.Watch(true, null, List.of()), ShellLine.Watch.of(List.of("watch", "-n")));
    }
}
