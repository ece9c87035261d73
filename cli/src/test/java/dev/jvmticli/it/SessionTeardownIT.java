package dev.jvmticli.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jvmticli.targets.CounterTarget;
import dev.jvmticli.targets.ThreadsTarget;
import dev.jvmticli.testing.CliProcess;
import dev.jvmticli.testing.CliRun;
import dev.jvmticli.testing.CliRun.Result;
import dev.jvmticli.testing.Jdks;
import dev.jvmticli.testing.RawAgentSocket;
import dev.jvmticli.testing.TargetJvm;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Sessions ended by anything but their stop: the CLI killed (SIGKILL) while its session runs, a
 * detach from another CLI during it, and the target killed during a {@code --duration} window.
 */
class SessionTeardownIT {
    static Stream<Jdks.Jdk> jdks() {
        return Jdks.stream();
    }

    /**
     * The teardown of a session whose client is gone or detached keeps JNI's local references in a
     * frame: async-profiler's stop makes hundreds (623 more after each kill before), which the agent
     * thread, never returning to Java, kept for good; the next commands then broke the capacity
     * -Xcheck:jni holds them to ({@code WARNING: JNI local refs: N, exceeds capacity: M}, with N
     * growing by kill). After each kill, and after the detach, `jit` runs under the checker: no
     * warning of it at any point (and JniWarningCheck checks the target's whole output).
     */
    @ParameterizedTest
    @MethodSource("jdks")
    void killedAndDetachedProfilesLeaveNoLocalReferences(Jdks.Jdk jdk) throws Exception {
        try (TargetJvm target = TargetJvm.start(jdk, ThreadsTarget.class).profiled()) {
            String pid = Long.toString(target.pid());
            assertEquals(0, CliRun.run("threads", pid).exit());
            for (int kill = 1; kill <= 3; kill++) {
                Process cli = CliProcess.start(List.of(), jdk, CliProcess.jar(), "profile", pid, "--duration", "60s");
                try {
                    awaitSession(target.pid(), "profile", true);
                } finally {
                    cli.destroyForcibly();
                }
                awaitSession(target.pid(), "profile", false);
                assertJitLeavesNoWarning(target, "after kill " + kill);
            }

            Process cli = CliProcess.start(List.of(), jdk, CliProcess.jar(), "profile", pid, "--duration", "60s");
            CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> read(cli.getErrorStream()));
            awaitSession(target.pid(), "profile", true);
            Result detach = CliRun.run("detach", pid);
            assertEquals(0, detach.exit(), detach.toString());
            assertTrue(cli.waitFor(10, TimeUnit.SECONDS), "the profiling CLI noticed the detach");
            assertEquals(9, cli.exitValue(), err.get());
            assertJitLeavesNoWarning(target, "after the detach");
        }
    }

    private static void assertJitLeavesNoWarning(TargetJvm target, String when) {
        Result jit = CliRun.run("jit", Long.toString(target.pid()));
        assertEquals(0, jit.exit(), jit.toString());
        // the target answers after any checker output the jit command caused
        if (!target.ask("sync").equals("unknown command sync")) {
            target.awaitLine("unknown command sync", Duration.ofSeconds(10));
        }
        List<String> warnings = target.output().stream().map(TargetJvm.OutputLine::text)
                .filter(l -> l.startsWith("WARNING in native method: ") || l.startsWith("WARNING: JNI local refs: ")).toList();
        assertEquals(List.of(), warnings, "the JNI checker's warnings " + when);
    }

    /**
     * The target killed during {@code --duration 40s}: alloc, contention and profile, which watch
     * the connection while they wait, exit at once with CONNECTION_LOST (9) and one line.
     */
    @ParameterizedTest
    @MethodSource("jdks")
    void aTargetKilledDuringTheWindowEndsTheCommandAtOnce(Jdks.Jdk jdk) throws Exception {
        for (String command : List.of("alloc", "contention", "profile")) {
            TargetJvm target = TargetJvm.start(jdk, CounterTarget.class).profiled();
            try {
                String pid = Long.toString(target.pid());
                long started = System.nanoTime();
                Process cli = CliProcess.start(List.of(), jdk, CliProcess.jar(), command, pid, "--duration", "40s");
                CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> read(cli.getErrorStream()));
                awaitSession(target.pid(), command, true);
                long killed = System.nanoTime();
                target.process().destroyForcibly();
                assertTrue(cli.waitFor(30, TimeUnit.SECONDS), command + " still waits 30 s after its target died");
                long millis = (System.nanoTime() - killed) / 1_000_000;
                long sinceStart = (System.nanoTime() - started) / 1_000_000;
                System.out.println(command + " exited " + millis + " ms after its target was killed");
                assertEquals(9, cli.exitValue(), err.get());
                assertTrue(err.get().startsWith("jvmti-cli: lost the connection to JVM " + pid), err.get());
                assertEquals(1, err.get().lines().count(), err.get());
                // at once: before the 40 s window, which began after the CLI started, would have ended
                assertTrue(sinceStart < 40_000, command + " exited " + millis + " ms after its target was killed, " + sinceStart
                        + " ms after it started");
            } finally {
                target.close();
            }
        }
    }

    /** Waits until the engine's session is running (or not): its stop, sent by another client, answers not_owner (or not_running). */
    private static void awaitSession(long pid, String engine, boolean running) throws InterruptedException {
        String wanted = running ? "not_owner" : "not_running";
        long deadline = System.nanoTime() + 30_000_000_000L;
        String answer = "";
        while (System.nanoTime() < deadline) {
            try (RawAgentSocket socket = new RawAgentSocket(pid)) {
                socket.send("{\"v\":7,\"id\":1,\"cmd\":\"" + engine + ".stop\"}\n");
                answer = socket.readLine();
                if (answer != null && answer.contains("\"" + wanted + "\"")) {
                    return;
                }
            } catch (IOException notYet) {
                answer = notYet.toString(); // no agent yet
            }
            Thread.sleep(50);
        }
        throw new AssertionError("the " + engine + " session is not " + (running ? "running" : "ended") + " within 30 s: " + answer);
    }

    private static String read(InputStream in) {
        try {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
