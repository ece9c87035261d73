package dev.jvmticli.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jvmticli.targets.NamedTarget;
import dev.jvmticli.testing.CliRun;
import dev.jvmticli.testing.CliRun.Result;
import dev.jvmticli.testing.Jdks;
import dev.jvmticli.testing.Launcher;
import dev.jvmticli.testing.TargetJvm;
import dev.jvmticli.testing.TargetsPerJdk;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The shell without a terminal: -c lists and scripts on standard input, against real targets on every JDK. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ShellIT {
    @RegisterExtension
    static final TargetsPerJdk targets = TargetsPerJdk.of(NamedTarget.class);

    Stream<Jdks.Jdk> jdks() {
        return Jdks.stream();
    }

    @ParameterizedTest
    @MethodSource("jdks")
    void dashCRunsEachCommandWithTheOutputOfItsOneShotForm(Jdks.Jdk jdk) {
        String pid = Long.toString(targets.get(jdk).pid());
        Result sleeper = CliRun.run("threads", pid, "--name", "sleeper");
        Result blocked = CliRun.run("threads", pid, "--state", "BLOCKED", "--sort", "name");
        Result agentPath = CliRun.run("agent-path");
        Result shell = CliRun.run("shell", pid, "-c", "threads --name sleeper; threads --state BLOCKED --sort name\nagent-path");
        assertEquals(0, shell.exit(), shell.toString());
        assertEquals(sleeper.out() + blocked.out() + agentPath.out(), shell.out());
        assertEquals("", shell.err());
    }

    @ParameterizedTest
    @MethodSource("jdks")
    void stacksIsTheTextOfItsOneShotFormOnStandardOutputInAFileAndThroughGrep(Jdks.Jdk jdk) throws Exception {
        String pid = Long.toString(targets.get(jdk).pid());
        java.nio.file.Path file = java.nio.file.Files.createTempFile("shell-stacks", ".txt");
        try {
            Result oneShot = CliRun.run("stacks", pid);
            Result shell = CliRun.run("shell", pid, "-c", "stacks; stacks > " + file + "; stacks | grep -v 'no line has this'");
            assertEquals(0, shell.exit(), shell.toString());
            String dumps = shell.out();
            String first = dumps.substring(0, dumps.indexOf("Full thread dump", dumps.indexOf("Full thread dump") + 1));
            first = first.substring(0, first.lastIndexOf('\n', first.length() - 2) + 1); // the next dump's timestamp line
            String grepped = dumps.substring(first.length());
            assertEquals(stable(oneShot.out()), stable(first));
            assertEquals(stable(oneShot.out()), stable(java.nio.file.Files.readString(file)));
            assertEquals(stable(oneShot.out()), stable(grepped));
        } finally {
            java.nio.file.Files.deleteIfExists(file);
        }
    }

    /**
     * What two dumps of this quiet target share: each thread without its CPU time and age, and
     * without the frames of the running ones; the words after the nid of a running thread or of one
     * of the JVM's own (a compiler thread goes from waiting to runnable) are left out too.
     */
    private static String stable(String dump) {
        StringBuilder kept = new StringBuilder();
        for (String block : dump.substring(dump.indexOf('\n') + 1).split("\n\n")) {
            if (block.matches("(?s)\"C[12] CompilerThread\\d+\".*")) {
                continue; // the JIT starts and ends these as its queue grows and empties
            }
            String masked = block.replaceAll(" cpu=[0-9.]+ms", "").replaceAll(" elapsed=[0-9.]+s", "");
            if (masked.contains("java.lang.Thread.State: RUNNABLE") || !masked.contains("java.lang.Thread.State: ")) {
                masked = masked.lines().findFirst().orElse("").replaceAll("( nid=\\S+) .*", "$1");
            }
            kept.append(masked).append("\n\n");
        }
        return kept.toString();
    }

    @ParameterizedTest
    @MethodSource("jdks")
    void theExitCodeIsThatOfTheFirstFailingCommandAndErrorsGoToStderr(Jdks.Jdk jdk) {
        String pid = Long.toString(targets.get(jdk).pid());
        Result shell = CliRun.run("shell", pid, "-c", "threads --name main | grep -v NAME; threads --state NOPE; threads --top 0; threads --name spinner | grep -i runnable");
        assertEquals(2, shell.exit(), shell.toString());
        assertEquals(2, shell.out().lines().count(), shell.out());
        assertTrue(shell.out().lines().findFirst().orElseThrow().endsWith("  main"), shell.out());
        assertTrue(shell.out().lines().skip(1).findFirst().orElseThrow().matches(".*RUNNABLE.*  spinner"), shell.out());
        assertEquals("jvmti-cli: unknown state 'NOPE' (expected one of NEW, RUNNABLE, BLOCKED, WAITING, TIMED_WAITING, TERMINATED)\n"
                + "Try 'jvmti-cli threads --help'.\n"
                + "jvmti-cli: --top takes a positive number\n"
                + "Try 'jvmti-cli threads --help'.\n", shell.err());
    }

    @ParameterizedTest
    @MethodSource("jdks")
    void aScriptOnStandardInputRunsLineByLineWithoutPromptsOrColour(Jdks.Jdk jdk) {
        TargetJvm target = targets.get(jdk);
        String script = """
                # a comment, then a blank line

                threads --name waiter
                threads --name 'nobody here'; threads --json --name parker | grep '"state"'
                frobnicate
                exit
                threads --name sleeper
                """;
        Result result = Launcher.run(jdk, script, "shell", Long.toString(target.pid()));
        assertEquals(1, result.exit(), "the code of the first command that failed: " + result);
        String[] lines = result.out().split("\n");
        assertEquals(3, lines.length, result.out());
        assertTrue(lines[0].startsWith("ID ") && lines[1].matches(".*WAITING.*in_object_wait.*  waiter"), result.out());
        assertEquals("    \"state\" : \"WAITING\",", lines[2]);
        assertEquals("jvmti-cli: no live thread matches 'nobody here'\n"
                + "jvmti-cli: unknown command 'frobnicate' (try help)\n", result.err());
        assertFalse(result.out().contains("\u001b") || result.err().contains("\u001b"), "no escape sequences");
        assertFalse(result.out().contains("sleeper"), "nothing runs after exit");
    }

    @ParameterizedTest
    @MethodSource("jdks")
    void grepCountsInvertsIgnoresCaseAndNumbersLines(Jdks.Jdk jdk) {
        String pid = Long.toString(targets.get(jdk).pid());
        Result all = CliRun.run("threads", pid);
        long waiting = all.out().lines().filter(l -> l.contains("WAITING")).count();
        Result shell = CliRun.run("shell", pid, "-c", "threads | grep -c WAITING; threads | grep -ic 'waiting'; "
                + "threads | grep -n -E '^ID +NAME|^ID '; threads | grep -v -i id | grep -c .");
        assertEquals(0, shell.exit(), shell.toString());
        List<String> lines = shell.out().lines().toList();
        assertEquals(4, lines.size(), shell.out());
        assertTrue(waiting > 0 && Long.parseLong(lines.get(0)) >= waiting - 2 && Long.parseLong(lines.get(0)) <= waiting + 2, shell.out());
        assertTrue(Long.parseLong(lines.get(1)) >= Long.parseLong(lines.get(0)), "-i finds at least as many: " + shell.out());
        assertTrue(lines.get(2).startsWith("1:ID "), "the header is line 1: " + shell.out());
        assertTrue(Long.parseLong(lines.get(3)) > 0, shell.out());
    }

    @ParameterizedTest
    @MethodSource("jdks")
    void headEndsAStackDumpEarlyTailKeepsItsEndAndGrepShowsContext(Jdks.Jdk jdk) {
        String pid = Long.toString(targets.get(jdk).pid());
        Result shell = CliRun.run("shell", pid, "-c", "stacks | head -n 2; stacks | grep -B1 -A2 '^\"holder\"' | head -n 3; "
                + "threads | tail -n 1; threads --name holder");
        assertEquals(0, shell.exit(), shell.toString());
        assertEquals("", shell.err());
        List<String> lines = shell.out().lines().toList();
        assertEquals(8, lines.size(), shell.out());
        assertTrue(lines.get(0).matches("\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d"), "the dump's first line, its time: " + shell.out());
        assertTrue(lines.get(1).startsWith("Full thread dump "), shell.out());
        assertTrue(lines.get(3).startsWith("\"holder\" "), "the line before, the holder's: " + shell.out());
        assertTrue(lines.get(4).contains("java.lang.Thread.State: "), shell.out());
        assertTrue(lines.get(7).endsWith("  holder"), "the shell went on after head: " + shell.out());
    }

    @ParameterizedTest
    @MethodSource("jdks")
    void aPidWithNoCommandOpensTheShellAndANameWorksToo(Jdks.Jdk jdk) {
        TargetJvm target = targets.get(jdk);
        Result byPid = Launcher.run(jdk, "threads --name holder\n", Long.toString(target.pid()));
        assertEquals(0, byPid.exit(), byPid.toString());
        assertTrue(byPid.out().endsWith("  holder\n"), byPid.out());

        Result unknown = Launcher.run(jdk, "", "NoSuchMain" + System.nanoTime());
        assertEquals(2, unknown.exit(), unknown.toString());
        assertTrue(unknown.err().startsWith("jvmti-cli: 'NoSuchMain") && unknown.err().contains("is not a command, a process id, or the name of a running JVM"), unknown.err());
    }
}
