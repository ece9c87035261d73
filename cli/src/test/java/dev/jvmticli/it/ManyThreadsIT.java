package dev.jvmticli.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jvmticli.targets.ManyThreadsTarget;
import dev.jvmticli.testing.CliRun;
import dev.jvmticli.testing.CliRun.Result;
import dev.jvmticli.testing.Jdks;
import dev.jvmticli.testing.TargetJvm;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The sampling commands on a target with hundreds of threads keep JNI's local-reference rules: a
 * reference per thread held past a frame's capacity makes -Xcheck:jni print
 * `WARNING: JNI local refs: N, exceeds capacity: M`, which JniWarningCheck fails this class on.
 * Found on a Kafka broker of ~100 threads, where every `profile` warned (issue 31): async-profiler holds
 * three references a thread while it names the threads. async-profiler 4.6 fails this (69 warnings):
 * it names them in a frame of 64 of its own (docs/profiling.md).
 */
class ManyThreadsIT {
    /** The first profile.start loads async-profiler, seconds on a loaded machine. */
    private static final String TIMEOUT = "--timeout=60s";

    static Stream<Jdks.Jdk> jdks() {
        return Jdks.stream();
    }

    @TempDir
    Path temp;

    @ParameterizedTest
    @MethodSource("jdks")
    void samplingCommandsOnHundredsOfThreadsKeepTheLocalReferenceRules(Jdks.Jdk jdk) {
        try (TargetJvm target = TargetJvm.start(jdk, ManyThreadsTarget.class).profiled()) {
            String pid = Long.toString(target.pid());
            int threads = Integer.parseInt(target.ask("count"));
            assertTrue(threads > ManyThreadsTarget.PARKED + ManyThreadsTarget.CONTENDERS, "the target's threads: " + threads);
            for (String event : new String[] {"cpu", "wall"}) {
                Result profile = CliRun.run("profile", TIMEOUT, pid, "--event", event, "--duration", "1s", "--json");
                assertEquals(0, profile.exit(), profile.toString());
                assertTrue(!event.equals("wall") || profile.out().contains("\"parked-"), "wall samples the parked threads: " + profile.out());
            }
            Result alloc = CliRun.run("alloc", pid, "--duration", "1s", "--json");
            assertEquals(0, alloc.exit(), alloc.toString());
            Result contention = CliRun.run("contention", pid, "--duration", "1s", "--json");
            assertEquals(0, contention.exit(), contention.toString());
            Result jit = CliRun.run("jit", pid, "--json");
            assertEquals(0, jit.exit(), jit.toString());
            Result dump = CliRun.run("dump", TIMEOUT, pid, "--out", temp.resolve("dump-" + jdk.feature()).toString(), "--interval", "1s",
                    "--profile", "1s");
            assertEquals(0, dump.exit(), dump.toString());
        }
    }
}
