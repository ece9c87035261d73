package dev.jvmticli.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jvmticli.targets.CounterTarget;
import dev.jvmticli.testing.CliProcess;
import dev.jvmticli.testing.CliRun;
import dev.jvmticli.testing.CliRun.Result;
import dev.jvmticli.testing.Jdks;
import dev.jvmticli.testing.Json;
import dev.jvmticli.testing.OtherUser;
import dev.jvmticli.testing.Proc;
import dev.jvmticli.testing.TargetJvm;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Root attaching to another user's JVM, and another user refused a JVM that is not theirs. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OtherUsersIT {
    private Path classes;

    @BeforeAll
    void readableTestClasses() {
        OtherUser.assume();
        classes = OtherUser.readableCopy(TargetJvm.testClasses());
    }

    @AfterAll
    void removeCopy() {
        if (classes != null) {
            OtherUser.delete(classes);
        }
    }

    Stream<Jdks.Jdk> jdks() {
        return Jdks.stream();
    }

    @ParameterizedTest
    @MethodSource("jdks")
    void rootAttachesToAJvmOfAnotherUser(Jdks.Jdk jdk) throws Exception {
        try (TargetJvm target = TargetJvm.startWrapped(OtherUser.as(), classes, jdk, CounterTarget.class, List.of())) {
            String pid = Long.toString(target.pid());
            int uid = OtherUser.uid();
            assertEquals(uid, Files.getAttribute(Path.of("/proc", pid), "unix:uid"));

            Result threads = CliRun.run("threads", pid, "--json");
            assertEquals(0, threads.exit(), threads.toString());
            Json.find(Json.parse(threads.out()).path("threads"), "name", "counter");

            Path dir = Path.of("/tmp/.jvmti-cli-" + uid);
            assertEquals(uid, Files.getAttribute(dir, "unix:uid", LinkOption.NOFOLLOW_LINKS), "the JVM's user owns its socket directory");
            assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(dir, LinkOption.NOFOLLOW_LINKS)));
            Path socket = dir.resolve(pid + ".sock");
            assertEquals(uid, Files.getAttribute(socket, "unix:uid", LinkOption.NOFOLLOW_LINKS));
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(socket, LinkOption.NOFOLLOW_LINKS)));

            assertEquals(0, CliRun.run("threads", pid).exit(), "root reuses the resident agent");
            assertEquals(1, Proc.agentThreads(target.pid()));
            Result detach = CliRun.run("detach", pid);
            assertEquals(0, detach.exit(), detach.toString());
        }
    }

    @Test
    void anotherUserCannotAttachToRootsJvm() throws Exception {
        Path jar = OtherUser.readableCopy(CliProcess.jar());
        try (TargetJvm target = TargetJvm.start(Jdks.current(), CounterTarget.class)) {
            Result result = CliProcess.run(OtherUser.as(), Jdks.current(), jar, "threads", Long.toString(target.pid()));
            assertEquals(7, result.exit(), result.toString());
            assertTrue(result.err().startsWith("jvmti-cli: permission denied"), result.err());
            assertEquals(1, result.err().lines().count(), result.err());
            assertEquals(0, Proc.agentThreads(target.pid()), "nothing was loaded");
        } finally {
            OtherUser.delete(jar);
        }
    }
}
