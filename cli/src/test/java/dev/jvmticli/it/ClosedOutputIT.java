package dev.jvmticli.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jvmticli.targets.AllocTarget;
import dev.jvmticli.testing.AgentProbe;
import dev.jvmticli.testing.CliProcess;
import dev.jvmticli.testing.CliRun;
import dev.jvmticli.testing.Jdks;
import dev.jvmticli.testing.TargetsPerJdk;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A pipe whose reader exits ends the CLI with 141, as `yes | head` ends: the packaged CLI run by
 * bash into `head`, on every installed JDK, each run given far less time than the command asks for.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ClosedOutputIT {
    static final long BOUND_SECONDS = 60;

    @RegisterExtension
    static final TargetsPerJdk targets = TargetsPerJdk.of(AllocTarget.class);

    Stream<Jdks.Jdk> jdks() {
        return Jdks.stream();
    }

    private record Piped(int cliExit, String out) {
    }

    /** Runs `CLI ARGS | READER` in bash and returns the CLI's exit code and what the reader printed. */
    private static Piped pipe(Jdks.Jdk jdk, String reader, String... args) throws IOException, InterruptedException {
        String cli = CliProcess.command(List.of(), jdk, CliProcess.jar(), args).stream()
                .map(word -> "'" + word.replace("'", "'\\''") + "'").collect(Collectors.joining(" "));
        Process bash = new ProcessBuilder("bash", "-c", cli + " | " + reader + "; exit ${PIPESTATUS[0]}")
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        bash.getOutputStream().close();
        if (!bash.waitFor(BOUND_SECONDS, TimeUnit.SECONDS)) {
            bash.descendants().forEach(ProcessHandle::destroyForcibly);
            bash.destroyForcibly();
            throw new AssertionError("still running " + BOUND_SECONDS + " s after its reader exited: " + String.join(" ", args));
        }
        return new Piped(bash.exitValue(), new String(bash.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
    }

    private String pid(Jdks.Jdk jdk) {
        return Long.toString(targets.get(jdk).pid());
    }

    @ParameterizedTest
    @MethodSource("jdks")
    void watchInTheShellEndsWhenHeadHasItsLines(Jdks.Jdk jdk) throws Exception {
        Piped run = pipe(jdk, "head -5", "shell", pid(jdk), "-c", "watch -n 1 threads --top 2");
        assertEquals(141, run.cliExit(), run.out());
        assertEquals(5, run.out().lines().count(), run.out());
        assertTrue(run.out().startsWith("Every 1s: threads --top 2"), run.out());
    }

    @ParameterizedTest
    @MethodSource("jdks")
    void aLongListingEndsAtTheFirstWriteAfterHeadExited(Jdks.Jdk jdk) throws Exception {
        // 70-120 KB each, so that the pipe (64 KB) and head's first read cannot take them all, however few methods are compiled yet
        Piped run = pipe(jdk, "head -5", "shell", pid(jdk), "-c", "jit --json; jit --json; jit --json");
        assertEquals(141, run.cliExit(), run.out());
        assertEquals(5, run.out().lines().count(), run.out());
    }

    @ParameterizedTest
    @MethodSource("jdks")
    void aWaitEndsWhenItsReaderIsGoneAndASessionStops(Jdks.Jdk jdk) throws Exception {
        Piped alloc = pipe(jdk, "head -0", "alloc", pid(jdk), "--duration", "10m");
        assertEquals(141, alloc.cliExit());
        long pid = targets.get(jdk).pid();
        assertFalse(AgentProbe.awaitCapability(pid, AllocIT.CAPABILITY, false).contains(AllocIT.CAPABILITY), "the session was stopped");
        assertEquals(0, CliRun.run("alloc", pid(jdk), "--duration", "100ms").exit(), "a new session can start");

        Piped contention = pipe(jdk, "head -0", "contention", pid(jdk), "--duration", "10m");
        assertEquals(141, contention.cliExit());
        assertFalse(AgentProbe.awaitCapability(pid, ContentionIT.CAPABILITY, false).contains(ContentionIT.CAPABILITY), "the session was stopped");

        Piped top = pipe(jdk, "head -0", "threads", pid(jdk), "--top", "2", "--interval", "10m");
        assertEquals(141, top.cliExit());
    }
}
