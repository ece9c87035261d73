package dev.jvmticli.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.jvmticli.targets.CounterTarget;
import dev.jvmticli.testing.CliProcess;
import dev.jvmticli.testing.CliRun.Result;
import dev.jvmticli.testing.Container;
import dev.jvmticli.testing.Jdks;
import dev.jvmticli.testing.Jre;
import dev.jvmticli.testing.Json;
import dev.jvmticli.testing.OtherUser;
import dev.jvmticli.testing.Proc;
import dev.jvmticli.testing.TargetJvm;
import dev.jvmticli.testing.TargetsPerJdk;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The CLI jar on a runtime made by jlink without jdk.attach and jdk.jcmd: it attaches through
 * HotSpot's attach protocol itself, to targets on every JDK, in and out of a container, gets the
 * answers the CLI on a full JDK gets, and fails with the same exit codes and messages.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class JreIT {
    @RegisterExtension
    static final TargetsPerJdk TARGETS = TargetsPerJdk.of(CounterTarget.class);

    private Jdks.Jdk jre;

    @BeforeAll
    void runtime() {
        jre = Jre.get();
    }

    Stream<Jdks.Jdk> jdks() {
        return Jdks.stream();
    }

    @Test
    void theRuntimeHasNeitherTheAttachApiNorJcmd() throws Exception {
        Process list = new ProcessBuilder(jre.java().toString(), "--list-modules").start();
        List<String> modules = new String(list.getInputStream().readAllBytes()).lines().map(m -> m.replaceAll("@.*", "")).sorted().toList();
        assertTrue(list.waitFor(30, TimeUnit.SECONDS));
        assertEquals(Jre.MODULES, modules);
        assertFalse(Files.exists(jre.home().resolve("lib/libattach.so")));
        assertFalse(Files.exists(jre.home().resolve("bin/jcmd")));
    }

    @ParameterizedTest
    @MethodSource("jdks")
    void attachesAndAnswersAsTheCliOnAJdk(Jdks.Jdk jdk) {
        String pid = Long.toString(TARGETS.get(jdk).pid());
        assertEquals(0, Proc.agentThreads(TARGETS.get(jdk).pid()), "a fresh target: the CLI on the runtime loads the agent");
        Result onJre = CliProcess.run(jre, "threads", pid, "--json");
        assertEquals(0, onJre.exit(), onJre.toString());
        assertEquals(1, Proc.agentThreads(TARGETS.get(jdk).pid()));
        assertTrue(threadNames(onJre).contains("counter"), onJre.out());
        // the JVM may start a thread of its own after an attach (JDK 25: VirtualThread-unblocker), so once more after the JDK's CLI
        Result onJdk = CliProcess.run(Jdks.current(), "threads", pid, "--json");
        assertEquals(0, onJdk.exit(), onJdk.toString());
        Result onJreAgain = CliProcess.run(jre, "threads", pid, "--json");
        assertEquals(0, onJreAgain.exit(), onJreAgain.toString());
        assertEquals(threadNames(onJdk), threadNames(onJreAgain));

        Result stacks = CliProcess.run(jre, "stacks", pid);
        assertEquals(0, stacks.exit(), stacks.toString());
        assertTrue(stacks.out().contains("\"counter\" #"), stacks.out());
        assertEquals(1, Proc.agentThreads(TARGETS.get(jdk).pid()), "the runtime's CLI reuses the resident agent");
    }

    private static TreeSet<String> threadNames(Result threads) {
        TreeSet<String> names = new TreeSet<>();
        for (JsonNode thread : Json.parse(threads.out()).path("threads")) {
            names.add(thread.path("name").asText());
        }
        return names;
    }

    @ParameterizedTest
    @MethodSource("jdks")
    void attachesToAJvmInItsOwnNamespaces(Jdks.Jdk jdk) {
        try (TargetJvm target = TargetJvm.startWrapped(Container.wrapper(), Container.classPath(), jdk, CounterTarget.class, List.of())) {
            Result threads = CliProcess.run(jre, "threads", Long.toString(target.pid()), "--json");
            assertEquals(0, threads.exit(), threads.toString());
            assertTrue(threadNames(threads).contains("counter"), threads.out());
            Path tmp = Path.of("/proc", Long.toString(target.pid()), "root/tmp");
            assertTrue(Files.exists(tmp.resolve(".java_pid1")), "the attach listener's socket is in the container's /tmp, named by its namespace pid");
            assertTrue(Files.exists(tmp.resolve(".jvmti-cli-0/1.sock")), "the agent's too");
        }
    }

    @ParameterizedTest
    @MethodSource("jdks")
    void rootAttachesToAJvmOfAnotherUser(Jdks.Jdk jdk) {
        OtherUser.assume();
        Path classes = OtherUser.readableCopy(TargetJvm.testClasses());
        try (TargetJvm target = TargetJvm.startWrapped(OtherUser.as(), classes, jdk, CounterTarget.class, List.of())) {
            Result threads = CliProcess.run(jre, "threads", Long.toString(target.pid()), "--json");
            assertEquals(0, threads.exit(), threads.toString());
            assertTrue(threadNames(threads).contains("counter"), threads.out());
        } finally {
            OtherUser.delete(classes);
        }
    }

    @ParameterizedTest
    @MethodSource("jdks")
    void aJvmThatRefusesDynamicAgentsGetsExitCode5AndTheFix(Jdks.Jdk jdk) {
        try (TargetJvm target = TargetJvm.start(jdk, CounterTarget.class, List.of("-XX:-EnableDynamicAgentLoading"))) {
            Result result = CliProcess.run(jre, "threads", Long.toString(target.pid()));
            assertOneLine(result, 5, "jvmti-cli: JVM " + target.pid() + " refuses dynamically loaded agents: start it with "
                    + "-XX:+EnableDynamicAgentLoading, or load the agent at start-up with -agentpath:<path printed by 'jvmti-cli agent-path'>");
        }
    }

    @ParameterizedTest
    @MethodSource("jdks")
    void aJvmWithoutAnAttachMechanismTimesOut(Jdks.Jdk jdk) {
        try (TargetJvm target = TargetJvm.start(jdk, CounterTarget.class, List.of("-XX:+DisableAttachMechanism"))) {
            Result result = CliProcess.run(jre, "--timeout", "2s", "threads", Long.toString(target.pid()));
            assertOneLine(result, 8, "jvmti-cli: JVM " + target.pid()
                    + " did not answer the attach request (is -XX:+DisableAttachMechanism set, or is it hung?)");
            assertTrue(target.process().isAlive());
        }
    }

    @Test
    void aDeadPidAndAProcessThatIsNotAJvm() throws Exception {
        Process gone = new ProcessBuilder("true").start();
        assertTrue(gone.waitFor(10, TimeUnit.SECONDS));
        assertOneLine(CliProcess.run(jre, "threads", Long.toString(gone.pid())), 3, "jvmti-cli: no process with pid " + gone.pid());

        Process sleep = new ProcessBuilder("sleep", "60").start();
        try {
            assertOneLine(CliProcess.run(jre, "threads", Long.toString(sleep.pid())), 4,
                    "jvmti-cli: process " + sleep.pid() + " is not a JVM (no libjvm.so mapped)");
            assertTrue(sleep.isAlive(), "no SIGQUIT was sent to it");
        } finally {
            sleep.destroyForcibly();
        }
    }

    @Test
    void anotherUserCannotAttachToRootsJvm() {
        OtherUser.assume();
        Path jar = OtherUser.readableCopy(CliProcess.jar());
        try {
            long pid = TARGETS.get(Jdks.current()).pid();
            Result result = CliProcess.run(OtherUser.as(), jre, jar, "threads", Long.toString(pid));
            assertOneLine(result, 7, "jvmti-cli: permission denied reading /proc/" + pid + "/maps: attach as the JVM's user or root");
        } finally {
            OtherUser.delete(jar);
        }
    }

    private static void assertOneLine(Result result, int exit, String line) {
        assertEquals(exit, result.exit(), result.toString());
        assertEquals("", result.out(), result.toString());
        assertEquals(line, result.err().strip(), result.toString());
    }
}
