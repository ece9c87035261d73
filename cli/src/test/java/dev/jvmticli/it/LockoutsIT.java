package dev.jvmticli.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.jvmticli.targets.CounterTarget;
import dev.jvmticli.testing.CliProcess;
import dev.jvmticli.testing.CliRun;
import dev.jvmticli.testing.CliRun.Result;
import dev.jvmticli.testing.Jdks;
import dev.jvmticli.testing.Json;
import dev.jvmticli.testing.RawAgentSocket;
import dev.jvmticli.testing.TargetJvm;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Issue 37, item 4: a client of the JVM's own user (or root) cannot lock the others out. Each test
 * failed before the fix: 64 idle answered clients or 64 slowloris clients made every other client
 * fail after its timeout with "did not answer hello" (exit 8), a full backlog made connect ignore
 * --timeout, and a FIFO as profile.start's library held the agent thread for good.
 */
class LockoutsIT {
    private static final int SLOTS = 64;
    private static final String HELLO = "{\"v\":7,\"id\":1,\"cmd\":\"hello\"}\n";

    @Test
    void idleAnsweredClientsGiveTheirSlotsToNewOnes() throws Exception {
        try (TargetJvm target = TargetJvm.start(Jdks.current(), CounterTarget.class)) {
            String pid = Long.toString(target.pid());
            assertEquals(0, CliRun.run("threads", pid).exit());
            List<RawAgentSocket> idle = new ArrayList<>();
            try {
                for (int i = 0; i < SLOTS; i++) {
                    RawAgentSocket client = new RawAgentSocket(target.pid());
                    client.send(HELLO);
                    assertTrue(Json.parse(client.readLine()).path("ok").asBoolean());
                    idle.add(client);
                }
                Result threads = CliRun.run("threads", pid, "--timeout", "20s");
                assertEquals(0, threads.exit(), threads.toString());
                assertTrue(threads.out().contains("counter"), threads.out());
            } finally {
                closeAll(idle);
            }
        }
    }

    /**
     * A shell waiting for its next line keeps its connection by a keep-alive: with every slot taken,
     * a new client gets the slot of one of the silent raw clients, not the shell's, though the shell
     * connected first. Without the keep-alive the shell's slot went (no raw client was hung up on).
     */
    @Test
    void aWaitingShellKeepsItsConnection() throws Exception {
        try (TargetJvm target = TargetJvm.start(Jdks.current(), CounterTarget.class)) {
            String pid = Long.toString(target.pid());
            assertEquals(0, CliRun.run("threads", pid).exit());
            Process shell = CliProcess.start(List.of(), Jdks.current(), CliProcess.jar(), "shell", pid);
            List<RawAgentSocket> idle = new ArrayList<>();
            try (Writer commands = new OutputStreamWriter(shell.getOutputStream(), StandardCharsets.UTF_8);
                 BufferedReader out = new BufferedReader(new InputStreamReader(shell.getInputStream(), StandardCharsets.UTF_8))) {
                commands.write("threads\n");
                commands.flush();
                String line;
                while ((line = out.readLine()) != null && !line.endsWith(" counter")) {
                    // the table up to the counter thread's row
                }
                assertTrue(line != null, "the shell answered its first command");
                for (int i = 0; i < SLOTS - 1; i++) {
                    RawAgentSocket client = new RawAgentSocket(target.pid());
                    client.send(HELLO);
                    assertTrue(Json.parse(client.readLine()).path("ok").asBoolean());
                    idle.add(client);
                }
                Thread.sleep(5500);
                Result newcomer = CliRun.run("threads", pid, "--timeout", "20s");
                assertEquals(0, newcomer.exit(), newcomer.toString());
                long hungUp = 0;
                for (RawAgentSocket client : idle) {
                    hungUp += client.hungUp() ? 1 : 0;
                }
                assertEquals(1, hungUp, "the newcomer took a silent raw client's slot, not the shell's");
                commands.write("threads\n");
                commands.close();
                assertTrue(shell.waitFor(60, TimeUnit.SECONDS));
                assertEquals(0, shell.exitValue(), new String(shell.getErrorStream().readAllBytes(), StandardCharsets.UTF_8));
            } finally {
                shell.destroyForcibly();
                closeAll(idle);
            }
        }
    }

    @Test
    void slowlorisClientsCountAsIdle() throws Exception {
        try (TargetJvm target = TargetJvm.start(Jdks.current(), CounterTarget.class)) {
            String pid = Long.toString(target.pid());
            assertEquals(0, CliRun.run("threads", pid).exit());
            List<RawAgentSocket> slow = new ArrayList<>();
            for (int i = 0; i < SLOTS; i++) {
                slow.add(new RawAgentSocket(target.pid()));
            }
            // a byte of a request every 500 ms from each, a whole line never
            CompletableFuture<Void> dripping = CompletableFuture.runAsync(() -> {
                try {
                    for (int b = 0; b < 120; b++) {
                        for (RawAgentSocket client : slow) {
                            client.send(HELLO.substring(b % 10, b % 10 + 1));
                        }
                        Thread.sleep(500);
                    }
                } catch (IOException | InterruptedException e) {
                    // dropped by the agent, or the test is over
                }
            });
            try {
                Thread.sleep(1000);
                Result threads = CliRun.run("threads", pid, "--timeout", "20s");
                assertEquals(0, threads.exit(), threads.toString());
                assertTrue(threads.out().contains("counter"), threads.out());
            } finally {
                dripping.cancel(true);
                closeAll(slow);
            }
        }
    }

    @Test
    void clientsThatAllKeepTalkingMakeANewOneHearAllConnectionsBusy() throws Exception {
        try (TargetJvm target = TargetJvm.start(Jdks.current(), CounterTarget.class)) {
            String pid = Long.toString(target.pid());
            assertEquals(0, CliRun.run("threads", pid).exit());
            List<RawAgentSocket> busy = new ArrayList<>();
            for (int i = 0; i < SLOTS; i++) {
                busy.add(new RawAgentSocket(target.pid()));
            }
            CompletableFuture<Void> talking = CompletableFuture.runAsync(() -> {
                try {
                    while (!Thread.currentThread().isInterrupted()) {
                        for (RawAgentSocket client : busy) {
                            client.send(HELLO);
                            client.readLine();
                        }
                        Thread.sleep(1000);
                    }
                } catch (IOException | InterruptedException e) {
                    // the test is over
                }
            });
            try {
                Thread.sleep(1000);
                Result threads = CliRun.run("threads", pid, "--timeout", "20s");
                assertEquals(14, threads.exit(), threads.toString());
                assertEquals("jvmti-cli: all connections busy: the agent in JVM " + pid + " serves as many clients as it can and none"
                        + " of them is idle; try again later\n", threads.err());
            } finally {
                talking.cancel(true);
                closeAll(busy);
            }
            assertEquals(0, CliRun.run("threads", pid).exit(), "served again once they are gone");
        }
    }

    @Test
    void connectGivesUpAtTheTimeoutWhenTheBacklogIsFull() throws Exception {
        try (TargetJvm target = TargetJvm.start(Jdks.current(), CounterTarget.class)) {
            String pid = Long.toString(target.pid());
            assertEquals(0, CliRun.run("threads", pid).exit());
            Path socket = RawAgentSocket.socketPath(target.pid());
            List<SocketChannel> queued = new ArrayList<>();
            signal("STOP", pid);
            try {
                awaitEveryThreadStopped(target.pid());
                fillBacklog(socket, queued);
                long started = System.nanoTime();
                Process cli = CliProcess.start(List.of(), Jdks.current(), CliProcess.jar(), "threads", pid, "--timeout", "2s");
                boolean ended = cli.waitFor(30, TimeUnit.SECONDS);
                long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started);
                if (!ended) {
                    cli.destroyForcibly();
                }
                assertTrue(ended, "threads --timeout 2s still connecting after 30 s");
                String err = new String(cli.getErrorStream().readAllBytes());
                assertEquals(14, cli.exitValue(), err);
                assertTrue(err.startsWith("jvmti-cli: all connections to the agent in JVM " + pid + " are busy"), err);
                assertTrue(seconds < 15, "gave up after " + seconds + " s");
            } finally {
                signal("CONT", pid);
                for (SocketChannel channel : queued) {
                    channel.close();
                }
            }
            assertEquals(0, CliRun.run("threads", pid).exit());
        }
    }

    @Test
    void aFifoAsTheProfilingLibraryIsRefusedAtOnce() throws Exception {
        Path dir = Files.createTempDirectory("jvmti-cli-fifo-");
        Path fifo = dir.resolve("libasyncProfiler.so");
        assertEquals(0, new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor());
        try (TargetJvm target = TargetJvm.start(Jdks.current(), CounterTarget.class)) {
            String pid = Long.toString(target.pid());
            assertEquals(0, CliRun.run("threads", pid).exit());
            try (RawAgentSocket raw = new RawAgentSocket(target.pid())) {
                raw.send("{\"v\":7,\"id\":7,\"cmd\":\"profile.start\",\"library\":\"" + fifo + "\",\"event\":\"cpu\",\"interval\":10000000}\n");
                JsonNode answer = Json.parse(CompletableFuture.supplyAsync(() -> readLine(raw)).get(20, TimeUnit.SECONDS));
                assertEquals(false, answer.path("ok").asBoolean(), answer.toString());
                assertTrue(answer.path("error").path("message").asText().contains("must be a regular file"), answer.toString());
            } finally {
                // frees an agent thread stuck in open(), as it was before the fix
                new ProcessBuilder("sh", "-c", "exec 3<>" + fifo + "; sleep 0.1").start().waitFor(5, TimeUnit.SECONDS);
            }
            assertEquals(0, CliRun.run("threads", pid).exit());
        } finally {
            Files.delete(fifo);
            Files.delete(dir);
        }
    }

    private static String readLine(RawAgentSocket raw) {
        try {
            return raw.readLine();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** Connects without blocking until the kernel says the listen backlog is full. */
    private static void fillBacklog(Path socket, List<SocketChannel> queued) throws IOException {
        for (int i = 0; i < 10_000; i++) {
            SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX);
            channel.configureBlocking(false);
            try {
                channel.connect(UnixDomainSocketAddress.of(socket));
                queued.add(channel);
            } catch (IOException full) {
                channel.close();
                return;
            }
        }
        throw new AssertionError("the backlog never filled");
    }

    private static void signal(String signal, String pid) throws Exception {
        assertEquals(0, new ProcessBuilder("kill", "-" + signal, pid).inheritIO().start().waitFor());
    }

    /**
     * kill returns before the signal has stopped every thread: an agent thread still running would
     * accept from the backlog after it filled, and the CLI's connect would then succeed.
     */
    private static void awaitEveryThreadStopped(long pid) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!everyThreadStopped(pid)) {
            assertTrue(System.nanoTime() < deadline, "JVM " + pid + " not stopped 10 s after SIGSTOP");
            Thread.sleep(10);
        }
    }

    private static boolean everyThreadStopped(long pid) throws IOException {
        try (var tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
            for (Path task : (Iterable<Path>) tasks::iterator) {
                String stat = Files.readString(task.resolve("stat"));
                if (stat.charAt(stat.lastIndexOf(')') + 2) != 'T') {
                    return false;
                }
            }
        }
        return true;
    }

    private static void closeAll(List<RawAgentSocket> clients) throws IOException {
        for (RawAgentSocket client : clients) {
            client.close();
        }
    }
}
