package dev.jvmticli.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.tools.attach.AgentInitializationException;
import com.sun.tools.attach.VirtualMachine;
import dev.jvmticli.targets.CounterTarget;
import dev.jvmticli.testing.CliRun;
import dev.jvmticli.testing.CliRun.Result;
import dev.jvmticli.testing.Container;
import dev.jvmticli.testing.Jdks;
import dev.jvmticli.testing.OtherUser;
import dev.jvmticli.testing.Proc;
import dev.jvmticli.testing.RawAgentSocket;
import dev.jvmticli.testing.SocketProbe;
import dev.jvmticli.testing.TargetJvm;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** Who may reach the agent, what it listens on, and what it writes. */
class SecurityIT {

    @Test
    void theSocketIsPrivateToTheJvmsUser() throws Exception {
        try (TargetJvm target = TargetJvm.start(Jdks.current(), CounterTarget.class)) {
            assertEquals(0, CliRun.run("threads", Long.toString(target.pid())).exit());
            Path socket = RawAgentSocket.socketPath(target.pid());
            int uid = (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");

            PosixFileAttributes dir = Files.readAttributes(socket.getParent(), PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            assertTrue(dir.isDirectory());
            assertEquals("rwx------", PosixFilePermissions.toString(dir.permissions()));
            assertEquals(uid, Files.getAttribute(socket.getParent(), "unix:uid", LinkOption.NOFOLLOW_LINKS));

            PosixFileAttributes file = Files.readAttributes(socket, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            assertTrue(file.isOther(), "a socket");
            assertEquals("rw-------", PosixFilePermissions.toString(file.permissions()));
            assertEquals(uid, Files.getAttribute(socket, "unix:uid", LinkOption.NOFOLLOW_LINKS));
            assertFalse(Files.exists(socket.resolveSibling(target.pid() + ".tmp")), "no temporary name left behind");
        }
    }

    /**
     * Another user cannot open the socket file; and one who gets past the file system anyway
     * (here: another uid holding CAP_DAC_OVERRIDE) is closed by the SO_PEERCRED check without a
     * byte of answer. Root gets an answer, as the JVM itself would let root in.
     */
    @Test
    void anotherUserIsKeptOutByTheFileSystemAndByThePeerCheck() throws Exception {
        OtherUser.assume();
        Path classes = OtherUser.readableCopy(TargetJvm.testClasses());
        try (TargetJvm target = TargetJvm.start(Jdks.current(), CounterTarget.class)) {
            assertEquals(0, CliRun.run("threads", Long.toString(target.pid())).exit());
            String socket = RawAgentSocket.socketPath(target.pid()).toString();

            String plain = probe(OtherUser.as(), classes, socket);
            assertTrue(plain.startsWith("REFUSED"), plain);

            String pastTheFileSystem = probe(OtherUser.as("dac_override"), classes, socket);
            assertEquals("CLOSED", pastTheFileSystem, "connected, then closed without an answer");

            String root = probe(List.of(), classes, socket);
            assertTrue(root.startsWith("ANSWER ") && root.contains("\"ok\":true"), root);

            assertEquals(0, CliRun.run("threads", Long.toString(target.pid())).exit(), "still serving its own user");
        } finally {
            OtherUser.delete(classes);
        }
    }

    private static String probe(List<String> wrapper, Path classes, String socket) throws Exception {
        List<String> command = new java.util.ArrayList<>(wrapper);
        command.addAll(List.of(Jdks.current().java().toString(), "-Xshare:auto", "-cp", classes.toString(),
                SocketProbe.class.getName(), socket));
        Process process = new ProcessBuilder(command).directory(Path.of("/tmp").toFile()).redirectErrorStream(true).start();
        String out = new String(process.getInputStream().readAllBytes()).strip();
        assertTrue(process.waitFor(30, java.util.concurrent.TimeUnit.SECONDS));
        return out;
    }

    /** After attach and commands, the target has no new TCP/UDP/raw socket and no new open file: only UNIX sockets. */
    @Test
    void noNetworkListenerAndNoNewFiles() throws Exception {
        try (TargetJvm target = TargetJvm.start(Jdks.current(), CounterTarget.class)) {
            long pid = target.pid();
            TreeMap<Integer, String> before = Proc.fds(pid);
            assertEquals(0, CliRun.run("threads", Long.toString(pid)).exit());
            assertEquals(0, CliRun.run("threads", Long.toString(pid), "--top", "1", "--interval", "10ms").exit());
            try (RawAgentSocket open = new RawAgentSocket(pid)) {
                open.send("{\"v\":7,\"id\":1,\"cmd\":\"hello\"}\n");
                assertTrue(open.readLine().contains("\"ok\":true"));
                Map<Integer, String> added = Proc.fds(pid).entrySet().stream()
                        .filter(e -> !e.getValue().equals(before.get(e.getKey())))
                        .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
                Set<String> inet = Proc.inetSocketInodes(pid);
                assertFalse(added.isEmpty(), "the agent's listener and this connection are new descriptors");
                for (String what : added.values()) {
                    assertTrue(what.startsWith("socket:["), "only sockets are new: " + added);
                    assertFalse(inet.contains(what), "not a TCP/UDP/raw socket: " + what);
                }
            }
        }
    }

    /** An option the agent does not know is refused, not ignored: no option can point it at a file. */
    @Test
    void theAgentRefusesOptionsItDoesNotKnow() throws Exception {
        String library = CliRun.run("agent-path").out().strip();
        try (TargetJvm target = TargetJvm.start(Jdks.current(), CounterTarget.class)) {
            Path bait = Path.of("/tmp", "jvmti-cli-bait-" + target.pid());
            VirtualMachine vm = VirtualMachine.attach(Long.toString(target.pid()));
            try {
                AgentInitializationException refused = assertThrows(AgentInitializationException.class,
                        () -> vm.loadAgentPath(library, "v=7,log=" + bait));
                assertEquals(106, refused.returnValue());
            } finally {
                vm.detach();
            }
            assertFalse(Files.exists(bait));
            assertEquals(0, Proc.agentThreads(target.pid()), "no server started");
            assertEquals(0, CliRun.run("threads", Long.toString(target.pid())).exit(), "a proper load still works");
        }
    }

    /** A socket directory that is a link, or another user's, is refused: exit 6 and nothing served. */
    /**
     * Root's agent (here in a container, whose /tmp the test may change) takes back a socket
     * directory that is a link or another user's, following nothing: what the link points to, and
     * what links inside the foreign directory point to, are untouched. A directory it cannot empty
     * safely (it holds a directory) is named by the CLI, exit 13; before issue 37 each was exit 6.
     */
    @Test
    void aSocketDirectoryThatIsALinkOrAnotherUsersIsTakenBackWithoutFollowingIt() throws Exception {
        try (TargetJvm target = TargetJvm.startWrapped(Container.wrapper(), Container.classPath(), Jdks.current(), CounterTarget.class, List.of())) {
            String pid = Long.toString(target.pid());
            Path tmp = Path.of("/proc", pid, "root", "tmp");
            Path dir = tmp.resolve(".jvmti-cli-0");
            Path elsewhere = Files.createDirectory(tmp.resolve("elsewhere"));
            Path kept = Files.writeString(elsewhere.resolve("kept"), "kept");
            Files.createSymbolicLink(dir, Path.of("/tmp/elsewhere"));
            Result link = CliRun.run("threads", pid);
            assertEquals(0, link.exit(), link.toString());
            try (var inside = Files.list(elsewhere)) {
                assertEquals(List.of(kept), inside.toList(), "nothing created or removed through the link");
            }
            assertPrivateDirectoryOfRoot(dir);

            replaceWithForeignDirectory(dir);
            Files.createSymbolicLink(dir.resolve("1.sock"), kept);
            Files.writeString(dir.resolve("planted"), "planted");
            Result foreign = CliRun.run("threads", pid);
            assertEquals(0, foreign.exit(), foreign.toString());
            assertEquals("kept", Files.readString(kept), "what a link inside pointed to is untouched");
            assertPrivateDirectoryOfRoot(dir);

            replaceWithForeignDirectory(dir);
            Files.createDirectory(dir.resolve("nested"));
            Result nested = CliRun.run("threads", pid, "--timeout", "3s");
            assertEquals(13, nested.exit(), nested.toString());
            assertEquals("jvmti-cli: the agent's socket directory " + dir + " belongs to uid 65534, not to the JVM's user (uid 0) or root:"
                    + " not trusted (another user may have made it to answer in the agent's place); remove it and run again\n", nested.err());

            Files.delete(dir.resolve("nested"));
            Files.delete(dir);
            Result fine = CliRun.run("threads", pid);
            assertEquals(0, fine.exit(), fine.toString());
            assertEquals(1, Proc.agentThreads(target.pid()));
        }
    }

    private static void replaceWithForeignDirectory(Path dir) throws java.io.IOException {
        try (var entries = Files.list(dir)) {
            for (Path entry : entries.toList()) {
                Files.delete(entry);
            }
        }
        Files.delete(dir);
        Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        Files.setAttribute(dir, "unix:uid", 65534);
    }

    private static void assertPrivateDirectoryOfRoot(Path dir) throws java.io.IOException {
        assertEquals(0, Files.getAttribute(dir, "unix:uid", LinkOption.NOFOLLOW_LINKS));
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(dir, LinkOption.NOFOLLOW_LINKS)));
    }
}
