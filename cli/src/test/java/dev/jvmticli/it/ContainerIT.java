package dev.jvmticli.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jvmticli.attach.TargetProcess;
import dev.jvmticli.client.AgentClient;
import dev.jvmticli.client.Hello;
import dev.jvmticli.targets.CounterTarget;
import dev.jvmticli.testing.CliProcess;
import dev.jvmticli.testing.CliRun;
import dev.jvmticli.testing.CliRun.Result;
import dev.jvmticli.testing.Container;
import dev.jvmticli.testing.Jdks;
import dev.jvmticli.testing.Json;
import dev.jvmticli.testing.Proc;
import dev.jvmticli.testing.TargetJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A JVM in its own pid and mount namespaces with a private /tmp, as in a container: the CLI
 * places the library inside the target's file system, reaches the socket through
 * /proc/<pid>/root, and knows the JVM by its namespace pid (1). The CLI on every JDK does it.
 */
class ContainerIT {
    static Stream<Jdks.Jdk> jdks() {
        return Jdks.stream();
    }

    @ParameterizedTest
    @MethodSource("jdks")
    void attachesToAJvmInItsOwnNamespaces(Jdks.Jdk jdk) throws Exception {
        try (TargetJvm target = TargetJvm.startWrapped(Container.wrapper(), Container.classPath(), jdk, CounterTarget.class, List.of())) {
            long pid = target.pid();
            String arg = Long.toString(pid);
            TargetProcess process = TargetProcess.of(pid);
            assertEquals(1, process.nsPid());
            assertFalse(process.seesSameFile(Path.of("/tmp")), "its /tmp is not ours");

            Result threads = CliRun.run("threads", arg, "--json");
            assertEquals(0, threads.exit(), threads.toString());
            Json.find(Json.parse(threads.out()).path("threads"), "name", "counter");

            Path root = Path.of("/proc", arg, "root");
            assertTrue(Files.exists(root.resolve("tmp/.jvmti-cli-0/1.sock")), "the socket is in the container's /tmp");
            try (Stream<Path> copies = Files.list(root.resolve("tmp/.jvmti-cli-lib-0"))) {
                assertEquals(1, copies.filter(p -> p.getFileName().toString().endsWith(".so")).count(), "the library was placed inside");
            }
            try (AgentClient client = AgentClient.connect(process.socketPath(), Duration.ofSeconds(10), "container")) {
                Hello hello = client.hello();
                assertEquals(1, hello.pid(), "the agent knows itself by its namespace pid");
            }

            for (Jdks.Jdk cli : Jdks.all()) {
                assertEquals(0, CliRun.run("detach", arg).exit());
                Result attach = CliProcess.run(cli, "threads", arg);
                assertEquals(0, attach.exit(), "CLI on " + cli + ": " + attach);
                assertEquals(1, Proc.agentThreads(pid));
            }
        }
    }
}
