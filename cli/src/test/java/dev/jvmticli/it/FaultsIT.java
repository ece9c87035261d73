package dev.jvmticli.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jvmticli.targets.CounterTarget;
import dev.jvmticli.testing.CliProcess;
import dev.jvmticli.testing.CliRun;
import dev.jvmticli.testing.CliRun.Result;
import dev.jvmticli.testing.Container;
import dev.jvmticli.testing.Jdks;
import dev.jvmticli.testing.Proc;
import dev.jvmticli.testing.RawAgentSocket;
import dev.jvmticli.testing.TargetJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The target dies, the CLI dies, a temp cleaner deletes the socket: nobody hangs, nothing leaks, one server. */
class FaultsIT {
    static Stream<Jdks.Jdk> jdks() {
        return Jdks.stream();
    }

    /** Killed during a 60 s --top interval, the target is reported at once (exit 9), not after the interval. */
    @Test
    void theTargetExitingMidCommandIsReportedAtOnce() throws Exception {
        TargetJvm target = TargetJvm.start(Jdks.current(), CounterTarget.class);
        try {
            long pid = target.pid();
            assertEquals(0, CliRun.run("threads", Long.toString(pid)).exit());
            int idle = settledFdCount(pid);
            long started = System.nanoTime();
            CompletableFuture<Result> top = CompletableFuture.supplyAsync(
                    () -> CliRun.run("threads", Long.toString(pid), "--top", "1", "--interval", "60s"));
            await(() -> Proc.fds(pid).size() > idle, "the CLI connected");
            long killed = System.nanoTime();
            target.process().destroyForcibly();
            Result result = top.get();
            long ended = System.nanoTime();
            System.out.println("the CLI exited " + (ended - killed) / 1_000_000 + " ms after the target was killed");
            assertEquals(9, result.exit(), result.toString());
            assertTrue(result.err().startsWith("jvmti-cli: lost the connection to JVM " + pid), result.err());
            assertEquals(1, result.err().lines().count(), result.err());
            // the interval began after the CLI started: a CLI that noticed only at its end would end 60 s after that or later
            long millis = (ended - started) / 1_000_000;
            assertTrue(millis < 60_000, "reported " + millis + " ms after the CLI started, before the 60 s interval ended");
        } finally {
            target.close();
        }
    }

    /** A CLI killed mid-command (SIGKILL) leaves nothing behind in the agent: its connection is closed and freed. */
    @Test
    void aKilledCliLeavesNothingBehind() throws Exception {
        try (TargetJvm target = TargetJvm.start(Jdks.current(), CounterTarget.class)) {
            long pid = target.pid();
            assertEquals(0, CliRun.run("threads", Long.toString(pid)).exit());
            int idle = settledFdCount(pid);
            for (int round = 0; round < 3; round++) {
                Process cli = CliProcess.start(List.of(), Jdks.current(), CliProcess.jar(),
                        "threads", Long.toString(pid), "--top", "1", "--interval", "60s");
                try {
                    await(() -> Proc.fds(pid).size() > idle, "the CLI connected");
                } finally {
                    cli.destroyForcibly();
                }
                await(() -> Proc.fds(pid).size() == idle, "the agent closed the dead CLI's connection");
            }
            assertEquals(0, CliRun.run("threads", Long.toString(pid)).exit());
        }
    }

    /**
     * A temp cleaner deletes the socket file: the next command loads the agent again, which finds
     * its server running and has it re-create the socket; still one server, one JEP 451 warning at most.
     * With no command at all, the agent re-creates the file by itself within seconds.
     */
    @ParameterizedTest
    @MethodSource("jdks")
    void aDeletedSocketFileIsRecreated(Jdks.Jdk jdk) throws Exception {
        try (TargetJvm target = TargetJvm.start(jdk, CounterTarget.class)) {
            long pid = target.pid();
            Path socket = RawAgentSocket.socketPath(pid);
            assertEquals(0, CliRun.run("threads", Long.toString(pid)).exit());

            Files.delete(socket);
            Result again = CliRun.run("threads", Long.toString(pid));
            assertEquals(0, again.exit(), again.toString());
            assertTrue(Files.exists(socket));
            assertEquals(1, Proc.agentThreads(pid), "one server");

            Files.delete(socket);
            await(() -> Files.exists(socket), "the agent re-created its socket by itself");
            assertEquals(0, CliRun.run("threads", Long.toString(pid)).exit());
            assertEquals(1, Proc.agentThreads(pid), "one server");
            assertTrue(JdkMatrixIT.dynamicLoadWarnings(target) <= 1, target.stderr().toString());
        }
    }

    /** Same with the whole /tmp/.jvmti-cli-<uid> directory gone (in a container, so no other test's socket goes with it). */
    @ParameterizedTest
    @MethodSource("jdks")
    void aDeletedSocketDirectoryIsRecreated(Jdks.Jdk jdk) throws Exception {
        try (TargetJvm target = TargetJvm.startWrapped(Container.wrapper(), Container.classPath(), jdk, CounterTarget.class, List.of())) {
            long pid = target.pid();
            assertEquals(0, CliRun.run("threads", Long.toString(pid)).exit());
            Path dir = Path.of("/proc", Long.toString(pid), "root", "tmp", ".jvmti-cli-0");
            assertTrue(Files.isDirectory(dir));
            deleteTree(dir);

            Result again = CliRun.run("threads", Long.toString(pid));
            assertEquals(0, again.exit(), again.toString());
            assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(dir)));
            assertTrue(Files.exists(dir.resolve("1.sock")));
            assertEquals(1, Proc.agentThreads(pid), "one server");
            assertTrue(JdkMatrixIT.dynamicLoadWarnings(target) <= 1, target.stderr().toString());
        }
    }

    private static void deleteTree(Path dir) throws Exception {
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    /**
     * The target's descriptor count once the agent has closed the connection of an earlier command:
     * the same for a whole second (the agent polls every second), within 20 s.
     */
    private static int settledFdCount(long pid) throws Exception {
        long deadline = System.nanoTime() + 20_000_000_000L;
        int count = Proc.fds(pid).size();
        int sameFor = 0;
        while (sameFor < 5 && System.nanoTime() < deadline) {
            Thread.sleep(200);
            int now = Proc.fds(pid).size();
            sameFor = now == count ? sameFor + 1 : 0;
            count = now;
        }
        return count;
    }

    static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within 20 s: " + what);
            }
            Thread.sleep(20);
        }
    }
}
