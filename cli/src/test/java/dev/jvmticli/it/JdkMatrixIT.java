package dev.jvmticli.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jvmticli.targets.CounterTarget;
import dev.jvmticli.testing.CliProcess;
import dev.jvmticli.testing.CliRun;
import dev.jvmticli.testing.CliRun.Result;
import dev.jvmticli.testing.Jdks;
import dev.jvmticli.testing.Json;
import dev.jvmticli.testing.RawAgentSocket;
import dev.jvmticli.testing.TargetJvm;
import java.nio.file.Files;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Every installed JDK as the CLI's and as the target's, JEP 451, and targets that refuse dynamic agents. */
class JdkMatrixIT {
    static Stream<Jdks.Jdk> jdks() {
        return Jdks.stream();
    }

    /** How many times the target printed the JEP 451 warning. */
    static long dynamicLoadWarnings(TargetJvm target) {
        return target.stderr().stream().filter(line -> line.contains("has been loaded dynamically")).count();
    }

    /** The CLI jar run on each JDK attaches to a fresh target on this JDK. */
    @ParameterizedTest
    @MethodSource("jdks")
    void theCliOnEveryJdkAttachesToATargetOnThisOne(Jdks.Jdk targetJdk) {
        for (Jdks.Jdk cliJdk : Jdks.all()) {
            try (TargetJvm target = TargetJvm.start(targetJdk, CounterTarget.class)) {
                Result result = CliProcess.run(cliJdk, "threads", Long.toString(target.pid()), "--json");
                assertEquals(0, result.exit(), "CLI on " + cliJdk + ", target on " + targetJdk + ": " + result);
                Json.find(Json.parse(result.out()).path("threads"), "name", "jvmti-cli agent");
            }
        }
    }

    /** Attach, reuse, detach, attach again, lose the socket and attach again: JDK 21+ warns once, older JDKs never. */
    @ParameterizedTest
    @MethodSource("jdks")
    void theDynamicLoadWarningAppearsOncePerJvmAtMost(Jdks.Jdk jdk) throws Exception {
        try (TargetJvm target = TargetJvm.start(jdk, CounterTarget.class)) {
            String pid = Long.toString(target.pid());
            assertEquals(0, CliRun.run("threads", pid).exit());
            assertEquals(0, CliRun.run("threads", pid).exit());
            assertEquals(0, CliRun.run("detach", pid).exit());
            assertEquals(0, CliRun.run("threads", pid).exit());
            Files.delete(RawAgentSocket.socketPath(target.pid()));
            assertEquals(0, CliRun.run("threads", pid).exit());
            assertEquals(0, CliRun.run("threads", pid).exit());
            assertEquals(jdk.feature() >= 21 ? 1 : 0, dynamicLoadWarnings(target), target.stderr().toString());
        }
    }

    @ParameterizedTest
    @MethodSource("jdks")
    void aJvmThatRefusesDynamicAgentsGetsExitCode5AndTheFix(Jdks.Jdk jdk) {
        try (TargetJvm target = TargetJvm.start(jdk, CounterTarget.class, List.of("-XX:-EnableDynamicAgentLoading"))) {
            Result result = CliRun.run("threads", Long.toString(target.pid()));
            assertEquals(5, result.exit(), result.toString());
            assertEquals(1, result.err().lines().count(), result.err());
            assertTrue(result.err().contains("start it with -XX:+EnableDynamicAgentLoading"), result.err());
            assertTrue(result.err().contains("-agentpath:"), result.err());
        }
    }
}
