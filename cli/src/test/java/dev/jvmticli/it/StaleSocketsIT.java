package dev.jvmticli.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jvmticli.targets.NamedTarget;
import dev.jvmticli.testing.CliRun;
import dev.jvmticli.testing.CliRun.Result;
import dev.jvmticli.testing.Jdks;
import dev.jvmticli.testing.OtherUser;
import dev.jvmticli.testing.RawAgentSocket;
import dev.jvmticli.testing.TargetJvm;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The sockets of JVMs that are gone (killed with SIGKILL, they never removed theirs) are removed
 * by the next agent start and by `list`; a live JVM's never, not even while it is stopped; a link
 * is never followed.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class StaleSocketsIT {
    /** What sweeps the socket directory: `list`, or an agent starting (here: an attach after a detach). */
    enum Sweeper { LIST, AGENT_START }

    private TargetJvm resident;

    @BeforeAll
    void startAResidentAgent() {
        resident = TargetJvm.start(Jdks.current(), NamedTarget.class);
        attach(resident.pid());
    }

    @AfterAll
    void stopIt() {
        resident.close();
    }

    private static void attach(long pid) {
        Result threads = CliRun.run("threads", Long.toString(pid));
        assertEquals(0, threads.exit(), threads.toString());
    }

    private void sweep(Sweeper sweeper) {
        if (sweeper == Sweeper.LIST) {
            Result list = CliRun.run("list");
            assertEquals(0, list.exit(), list.toString());
        } else {
            Result detach = CliRun.run("detach", Long.toString(resident.pid()));
            assertEquals(0, detach.exit(), detach.toString());
            attach(resident.pid());
        }
    }

    private static boolean present(Path file) {
        return Files.exists(file, LinkOption.NOFOLLOW_LINKS);
    }

    /** A socket file nobody listens on: bound, then closed (closing leaves the file). */
    private static void plantStaleSocket(Path path) throws IOException {
        try (ServerSocketChannel channel = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            channel.bind(UnixDomainSocketAddress.of(path));
        }
    }

    private static long deadPid() throws Exception {
        Process gone = new ProcessBuilder("true").start();
        gone.waitFor();
        return gone.pid();
    }

    @ParameterizedTest
    @EnumSource(Sweeper.class)
    void aJvmKilledWithSigkillLeavesItsSocketAndTheNextSweepRemovesIt(Sweeper sweeper) throws Exception {
        Path socket;
        try (TargetJvm killed = TargetJvm.start(Jdks.current(), NamedTarget.class)) {
            attach(killed.pid());
            socket = RawAgentSocket.socketPath(killed.pid());
            assertTrue(present(socket));
            ProcessHandle jvm = ProcessHandle.of(killed.pid()).orElseThrow();
            jvm.destroyForcibly();
            jvm.onExit().get(10, TimeUnit.SECONDS);
        }
        assertTrue(present(socket), "SIGKILL left the socket");
        sweep(sweeper);
        assertFalse(present(socket), sweeper + " removed it");
        assertTrue(present(RawAgentSocket.socketPath(resident.pid())), "the live JVM's socket stays");
    }

    @ParameterizedTest
    @EnumSource(Sweeper.class)
    void aLiveJvmsSocketStaysEvenWhileTheJvmIsStopped(Sweeper sweeper) throws Exception {
        try (TargetJvm stopped = TargetJvm.start(Jdks.current(), NamedTarget.class)) {
            attach(stopped.pid());
            Path socket = RawAgentSocket.socketPath(stopped.pid());
            assertEquals(0, new ProcessBuilder("kill", "-STOP", Long.toString(stopped.pid())).start().waitFor());
            try {
                sweep(sweeper);
                assertTrue(present(socket), "a stopped JVM's agent still holds its socket");
            } finally {
                assertEquals(0, new ProcessBuilder("kill", "-CONT", Long.toString(stopped.pid())).start().waitFor());
            }
            attach(stopped.pid());
        }
    }

    @ParameterizedTest
    @EnumSource(Sweeper.class)
    void aSocketNamedForAPidNowHeldByAProcessThatIsNotItsJvmIsRemoved(Sweeper sweeper) throws Exception {
        Process sleep = new ProcessBuilder("sleep", "60").start();
        try {
            Path socket = RawAgentSocket.socketPath(sleep.pid());
            plantStaleSocket(socket);
            sweep(sweeper);
            assertFalse(present(socket), "pid " + sleep.pid() + " is alive, but it is a sleep, and nobody listens");
            assertTrue(sleep.isAlive());
        } finally {
            sleep.destroyForcibly();
        }
    }

    @ParameterizedTest
    @EnumSource(Sweeper.class)
    void aLinkInTheDirectoryIsNeitherFollowedNorRemoved(Sweeper sweeper, @TempDir Path elsewhere) throws Exception {
        Path victim = elsewhere.resolve("victim.sock");
        plantStaleSocket(victim);
        Path link = RawAgentSocket.socketPath(deadPid());
        Files.createSymbolicLink(link, victim);
        try {
            sweep(sweeper);
            assertTrue(present(link), "the link is not a socket: left alone, not judged by what it points to");
            assertTrue(present(victim), "what it points to is untouched");
        } finally {
            Files.deleteIfExists(link);
        }
    }

    @Test
    void asRootListSweepsEveryUsersDirectoryButRemovesOnlyThatUsersSockets() throws Exception {
        OtherUser.assume();
        int uid = OtherUser.uid();
        Path dir = Path.of("/tmp/.jvmti-cli-" + uid);
        if (!present(dir)) {
            Files.createDirectory(dir);
            Files.setAttribute(dir, "unix:uid", uid);
            Files.setAttribute(dir, "unix:gid", uid);
            Files.setAttribute(dir, "unix:mode", 0700);
        }
        Path theirs = dir.resolve(deadPid() + ".sock");
        Path rootsInTheirs = dir.resolve(deadPid() + ".sock");
        plantStaleSocket(theirs);
        Files.setAttribute(theirs, "unix:uid", uid, LinkOption.NOFOLLOW_LINKS);
        plantStaleSocket(rootsInTheirs);
        try {
            sweep(Sweeper.LIST);
            assertFalse(present(theirs), "the other user's stale socket is removed by root");
            assertTrue(present(rootsInTheirs), "a file of another user than the directory's is left alone");
        } finally {
            Files.deleteIfExists(theirs);
            Files.deleteIfExists(rootsInTheirs);
        }
    }
}
