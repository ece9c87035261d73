package dev.jvmticli.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.jvmticli.targets.NamedTarget;
import dev.jvmticli.testing.CliRun;
import dev.jvmticli.testing.CliRun.Result;
import dev.jvmticli.testing.Jdks;
import dev.jvmticli.testing.Json;
import dev.jvmticli.testing.Proc;
import dev.jvmticli.testing.TargetJvm;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** `list`, and naming a JVM by a fragment of its main class instead of its pid. */
class ListIT {
    static Stream<Jdks.Jdk> jdks() {
        return Jdks.stream();
    }

    private static JsonNode listed(long pid) {
        Result list = CliRun.run("list", "--json");
        assertEquals(0, list.exit(), list.toString());
        return Json.find(Json.parse(list.out()).path("jvms"), "pid", Long.toString(pid));
    }

    @ParameterizedTest
    @MethodSource("jdks")
    void listShowsTheJvmWithoutAttachingAndThenItsResidentAgent(Jdks.Jdk jdk) throws Exception {
        try (TargetJvm target = TargetJvm.start(jdk, NamedTarget.class)) {
            JsonNode jvm = listed(target.pid());
            assertEquals(NamedTarget.class.getName(), jvm.path("main").asText());
            assertEquals(jdk.version(), jvm.path("jdk").asText());
            assertTrue(jvm.path("uptimeSeconds").asLong() >= 0 && jvm.path("uptimeSeconds").asLong() < 3600, jvm.toString());
            assertFalse(jvm.path("agent").asBoolean());
            assertEquals(0, Proc.agentThreads(target.pid()), "list attached to nothing");
            assertFalse(target.stderr().stream().anyMatch(l -> l.contains("loaded dynamically")), "no agent was loaded");

            Result text = CliRun.run("list");
            String line = text.out().lines().filter(l -> l.trim().startsWith(target.pid() + " ")).findFirst().orElseThrow(() -> new AssertionError(text.out()));
            assertTrue(line.matches(" *" + target.pid() + " +" + java.util.regex.Pattern.quote(jdk.version()) + " +\\d+[smhd]\\S* +- +"
                    + java.util.regex.Pattern.quote(NamedTarget.class.getName())), line);
            assertTrue(text.out().startsWith("PID") || text.out().trim().startsWith("PID"), text.out());

            assertEquals(0, CliRun.run("threads", Long.toString(target.pid())).exit());
            assertTrue(listed(target.pid()).path("agent").asBoolean(), "the agent is resident now");
            assertTrue(CliRun.run("list").out().lines().anyMatch(l -> l.trim().startsWith(target.pid() + " ") && l.contains(" yes ")));
            assertFalse(CliRun.run("list").out().lines().anyMatch(l -> l.trim().startsWith(ProcessHandle.current().pid() + " ")),
                    "the CLI does not list itself");
        }
    }

    @Test
    void aNameFragmentResolvesToTheOneJvmThatMatches() {
        try (TargetJvm target = TargetJvm.start(Jdks.current(), NamedTarget.class)) {
            for (String name : new String[] {"NamedTarget", "targets.Named", NamedTarget.class.getName()}) {
                Result threads = CliRun.run("threads", name, "--name", "sleeper");
                assertEquals(0, threads.exit(), threads.toString());
                assertTrue(threads.out().contains("TIMED_WAITING") && threads.out().endsWith("sleeper\n"), threads.out());
            }
            Result detach = CliRun.run("detach", "NamedTarget");
            assertEquals("detached from " + target.pid() + "\n", detach.out());
        }
    }

    @Test
    void aNameMatchingNoJvmOrSeveralIsAUsageErrorThatSaysWhich() {
        String nothing = "NoSuchMain" + System.nanoTime();
        Result none = CliRun.run("threads", nothing);
        assertEquals(2, none.exit(), none.toString());
        assertEquals(List.of("Try 'jvmti-cli threads --help'."), none.err().lines().skip(1).toList(), "one line and the usage hint");
        assertTrue(none.err().startsWith("jvmti-cli: '" + nothing + "' is not a process id, and no JVM's main class or jar contains it"), none.err());

        try (TargetJvm first = TargetJvm.start(Jdks.current(), NamedTarget.class);
             TargetJvm second = TargetJvm.start(Jdks.current(), NamedTarget.class)) {
            Result several = CliRun.run("threads", "NamedTarget");
            assertEquals(2, several.exit(), several.toString());
            assertEquals("", several.out());
            assertEquals(List.of("Try 'jvmti-cli threads --help'."), several.err().lines().skip(1).toList(), "one line and the usage hint");
            assertTrue(several.err().startsWith("jvmti-cli: 'NamedTarget' matches 2 JVMs, give a pid: "), several.err());
            assertTrue(several.err().contains(first.pid() + " (" + NamedTarget.class.getName() + ")"), several.err());
            assertTrue(several.err().contains(second.pid() + " (" + NamedTarget.class.getName() + ")"), several.err());
        }
    }
}
