package dev.jvmticli.shell;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jvmticli.attach.TargetProcess;
import dev.jvmticli.cli.CliContext;
import dev.jvmticli.client.AgentClient;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The shell's engine against a fake agent: one connection for many commands, and what happens when it breaks. */
class ShellTest {
    /** How long an answer is held back in the cancel test. */
    private static final long HELD_MILLIS = 30_000;
    /** Longer than an answer is held back: a command left to wait for one ends only when the agent lets it go. */
    private static final Duration ANSWER_TIMEOUT = Duration.ofMillis(2 * HELD_MILLIS);

    @TempDir
    Path dir;

    private FakeAgent agent;
    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();
    private final AtomicInteger opened = new AtomicInteger();
    private Shell shell;

    @BeforeEach
    void start() throws IOException {
        agent = new FakeAgent(dir.resolve("agent.sock"));
        // the test JVM itself is the target: a real JVM pid for the commands' checks, a fake agent to talk to
        TargetProcess self = TargetProcess.of(ProcessHandle.current().pid());
        CliContext launch = new CliContext(new PrintWriter(out, true), new PrintWriter(err, true)) {
            @Override
            public AgentClient connect(TargetProcess target) {
                opened.incrementAndGet();
                try {
                    return AgentClient.connect(agent.socket(), ANSWER_TIMEOUT, "fake agent");
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        };
        shell = new Shell(launch, self, new Shell.Io(new PrintWriter(out, true), new PrintWriter(err, true), false, () -> 0, Shell.Screen.NONE));
    }

    @AfterEach
    void stop() throws IOException {
        shell.close();
        agent.close();
    }

    @Test
    void everyCommandGoesOverOneConnectionThatCommandsDoNotClose() {
        assertEquals(0, shell.runLine("threads; threads --json; threads --name 'fake*' | grep fake-main"), err.toString());
        assertEquals(0, shell.runLine("threads --sort name"), err.toString());
        assertEquals(1, agent.accepted(), "one connection");
        assertEquals(1, opened.get());
        assertEquals(4, out.toString().lines().filter(l -> l.contains("fake-main")).count(), out.toString());
        assertEquals(0, shell.status());
    }

    @Test
    void aConnectionTheAgentDroppedIsOpenedAgainBeforeTheNextCommand() throws Exception {
        assertEquals(0, shell.runLine("threads"));
        agent.dropClients();
        assertEquals(0, shell.runLine("threads"), err.toString());
        assertEquals(2, agent.accepted());
        assertEquals("", err.toString());
    }

    @Test
    void cancellingDropsTheOutputAndTheConnectionAndTheNextCommandGetsAFreshOne() throws Exception {
        assertEquals(0, shell.runLine("threads"));
        agent.answerDelay(HELD_MILLIS);
        Thread worker = new Thread(() -> shell.runLine("threads --json"));
        worker.start();
        while (agent.delayed() < 1 && worker.isAlive()) { // the command waits for a held-back answer
            Thread.sleep(10);
        }
        assertEquals(1, agent.delayed());
        String before = out.toString();
        // what is checked is what came first, never a time a loaded machine may miss: a cancel that waited for the
        // command, or a command that went on waiting for its answer, would end only after the agent let the answer go
        shell.cancel(worker);
        assertEquals(0, agent.released(), "cancel returns while the command's answer is still held back");
        worker.join();
        assertEquals(0, agent.released(), "the cancelled command ended without its answer");
        assertEquals(before, out.toString(), "nothing printed by the cancelled command");
        assertEquals(0, shell.status(), "a cancelled command is no failure");
        agent.answerDelay(0);
        assertEquals(0, shell.runLine("threads"), err.toString());
        assertEquals(2, agent.accepted(), "a new connection after the cancel");
    }

    @Test
    void theStatusIsTheFirstFailingExitCodeAndRedirectionWritesAFile() throws Exception {
        Path file = dir.resolve("threads.txt");
        assertEquals(0, shell.runLine("threads > '" + file + "'"));
        assertEquals(2, shell.runLine("threads --state NOPE; threads --top 0"));
        assertEquals(2, shell.runLine("nosuchcommand"));
        assertEquals(0, shell.runLine("threads >> '" + file + "'"));
        assertEquals(2, shell.status());
        assertEquals(2, Files.readAllLines(file).stream().filter(l -> l.endsWith("fake-main")).count());
        assertTrue(err.toString().contains("jvmti-cli: unknown state 'NOPE'"), err.toString());
        assertTrue(err.toString().contains("jvmti-cli: unknown command 'nosuchcommand' (try help)"), err.toString());
        assertEquals(0, shell.runLine("exit"));
        assertTrue(shell.exitRequested());
    }

    @Test
    void headEndsTheCommandWithoutAnErrorAndTheShellGoesOn() {
        assertEquals(0, shell.runLine("help"));
        List<String> help = out.toString().lines().toList();
        out.getBuffer().setLength(0);
        assertTrue(help.size() > 12, "help is longer than the head: " + help);

        // help is the shell's own (the closed pipe comes out of dispatch), threads a command (its handler reports 141)
        assertEquals(0, shell.runLine("help | head -n 3; threads | head -n 1; help | tail -n 2"), err.toString());
        assertEquals(0, shell.status());
        List<String> lines = out.toString().lines().toList();
        assertEquals(help.subList(0, 3), lines.subList(0, 3), out.toString());
        assertTrue(lines.get(3).startsWith("ID "), "threads' first line alone: " + out);
        assertEquals(help.subList(help.size() - 2, help.size()), lines.subList(4, 6), out.toString());
        assertEquals(6, lines.size(), out.toString());
        assertFalse(shell.exitRequested(), "a satisfied head is no closed shell");
        assertEquals(2, shell.runLine("help | grep -A1 -m0 x"));
        assertEquals("jvmti-cli: grep takes -c, -v, -i, -n, -E, -A N, -B N and -C N, not '-m0' (a TEXT that starts with '-' goes after --)\n",
                err.toString());
    }

    @Test
    void watchRunsEachFrameThroughHead() throws Exception {
        Thread worker = new Thread(() -> shell.runLine("watch -n 0.1 threads | head -n 1"));
        worker.start();
        while (out.toString().split("Every 0.1s: threads", -1).length < 4 && worker.isAlive()) {
            Thread.sleep(10);
        }
        shell.cancel(worker);
        worker.join();
        String[] frames = out.toString().split("Every 0.1s: threads", -1);
        assertTrue(frames.length >= 4, "three frames or more: " + out);
        for (int i = 1; i < frames.length - 1; i++) {
            List<String> written = frames[i].lines().filter(line -> !line.isBlank()).toList();
            assertEquals(2, written.size(), "the rest of the header line and threads' first line: " + frames[i]);
            assertTrue(written.get(1).startsWith("ID "), frames[i]);
        }
        assertEquals("", err.toString());
    }

    @Test
    void watchWritesEachFrameAfterTheFirstOverTheLastInPlace() {
        Shell.Screen screen = new Shell.Screen("<clear>", "<home>", "<eol>", "<eos>");
        assertEquals("<clear>Every 2s\n\nrow\n", Shell.onScreen("Every 2s\n\nrow\n", screen, true));
        assertEquals("<home>Every 2s<eol>\n<eol>\nrow<eol>\n<eol><eos>", Shell.onScreen("Every 2s\n\nrow\n", screen, false));
        Shell.Screen noCursor = new Shell.Screen("<clear>", "", "<eol>", "<eos>");
        assertEquals("<clear>Every 2s\nrow", Shell.onScreen("Every 2s\nrow", noCursor, false), "without a cursor home: cleared each time");
    }

    @Test
    void helpListsEveryRegisteredCommandButShellAndHelp() {
        assertEquals(0, shell.runLine("help"));
        assertTrue(out.toString().contains("  threads "), out.toString());
        assertTrue(out.toString().contains("  list "), out.toString());
        assertTrue(!out.toString().contains("  shell "), out.toString());
        assertEquals(0, shell.runLine("help threads"));
        assertTrue(out.toString().contains("--top=N"), out.toString());
    }
}
