package dev.jvmticli.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jvmticli.client.AgentClient;
import dev.jvmticli.client.Hello;
import dev.jvmticli.targets.ThreadsTarget;
import dev.jvmticli.testing.CliRun;
import dev.jvmticli.testing.Jdks;
import dev.jvmticli.testing.Json;
import dev.jvmticli.testing.RawAgentSocket;
import dev.jvmticli.testing.TargetJvm;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The same agent started with -agentpath: (start-up mode) and by live attach. */
class StartupModeIT {
    static Stream<Jdks.Jdk> jdks() {
        return Jdks.stream();
    }

    static Hello hello(TargetJvm target) throws Exception {
        try (AgentClient client = AgentClient.connect(RawAgentSocket.reachedSocketPath(target.pid()), Duration.ofSeconds(10), "target")) {
            return client.hello();
        }
    }

    @ParameterizedTest
    @MethodSource("jdks")
    void startUpModeHoldsTheMonitorCapabilitiesLiveAttachCannotGet(Jdks.Jdk jdk) throws Exception {
        String library = CliRun.run("agent-path").out().strip();
        try (TargetJvm startup = TargetJvm.start(jdk, ThreadsTarget.class, List.of("-agentpath:" + library + "=v=7"))) {
            Hello hello = hello(startup);
            assertEquals("startup", hello.phase());
            assertTrue(hello.capabilities().containsAll(List.of("can_get_owned_monitor_info",
                    "can_get_owned_monitor_stack_depth_info", "can_get_current_contended_monitor", "can_get_thread_cpu_time")),
                    hello.capabilities().toString());
            assertEquals(0, CliRun.run("threads", Long.toString(startup.pid())).exit());
            // can_generate_exception_events only when asked for (exception-events): it costs the JVM for good
            assertFalse(hello.capabilities().contains("can_generate_exception_events"), hello.capabilities().toString());
            CliRun.Result exceptions = CliRun.run("exceptions", Long.toString(startup.pid()), "--duration", "300ms", "--json");
            assertEquals(0, exceptions.exit(), exceptions.toString());
            ExceptionsIT.assertWithoutThrowEvents(Json.parse(exceptions.out()), "started without exception-events");
            assertFalse(startup.stderr().stream().anyMatch(l -> l.contains("has been loaded dynamically")), "no JEP 451 warning in start-up mode");
        }
        try (TargetJvm live = TargetJvm.start(jdk, ThreadsTarget.class)) {
            assertEquals(0, CliRun.run("threads", Long.toString(live.pid())).exit());
            Hello hello = hello(live);
            assertEquals("attach", hello.phase());
            assertEquals(live.pid(), hello.pid());
            assertTrue(hello.capabilities().contains("can_get_thread_cpu_time"), hello.capabilities().toString());
            assertFalse(hello.capabilities().contains("can_get_owned_monitor_info"), "HotSpot refuses it in the live phase");
            assertEquals(String.valueOf(jdk.feature()), hello.jvm().specVersion());
        }
    }
}
