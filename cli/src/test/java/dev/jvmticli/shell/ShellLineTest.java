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

    private static List<String> run(String grep, List<String> input) {
        List<String> out = new java.util.ArrayList<>();
        ShellLine.Filter filter = ShellLine.parse("threads | " + grep).get(0).greps().get(0).filter(out::add);
        input.forEach(filter::accept);
        filter.end();
        filter.end();
        return out;
    }

    @Test
    void syntaxErrorsAreUsageFailures() {
        for (String bad : new String[] {"threads 'open", "threads \"open", "; threads", "| grep x", "threads | sort",
                "threads | grep", "threads | grep a b", "threads >", "threads > a > b", "threads > a | grep x", "threads | grep '('",
                "threads | grep -F x", "threads | grep -c"}) {
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
