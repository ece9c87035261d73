package dev.jvmticli.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jvmticli.targets.CounterTarget;
import dev.jvmticli.targets.ForgedAgent;
import dev.jvmticli.testing.CliProcess;
import dev.jvmticli.testing.CliRun.Result;
import dev.jvmticli.testing.Container;
import dev.jvmticli.testing.Jdks;
import dev.jvmticli.testing.Json;
import dev.jvmticli.testing.OtherUser;
import dev.jvmticli.testing.PrivateTmp;
import dev.jvmticli.testing.TargetJvm;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 37, item 3: another user makes the agent's socket directory first and listens on the
 * socket of a JVM root will look at. Every scenario runs in a mount namespace with its own /tmp
 * ({@link PrivateTmp}): the CLI, the target and the attacker in it, the machine's real
 * /tmp/.jvmti-cli-* untouched. Before the fix root's CLI sent its requests to the attacker and
 * printed her rows (exit 0), and `list` said AGENT yes.
 */
class ImpersonationIT {
    private static final int NOBODY = 65534;

    @BeforeAll
    static void users() {
        OtherUser.assume();
    }

    @Test
    void rootsAgentTakesBackTheDirectoryAnotherUserMadeAndTheAttackerGetsNothing() throws Exception {
        try (PrivateTmp tmp = PrivateTmp.create();
             TargetJvm target = TargetJvm.startWrapped(tmp.wrapper(), Container.classPath(), Jdks.current(), CounterTarget.class, List.of());
             TargetJvm forged = forgedAgent(tmp, OtherUser.as(), "/tmp/.jvmti-cli-0", target.pid())) {
            String pid = Long.toString(target.pid());
            Path dir = Path.of("/proc", pid, "root", "tmp", ".jvmti-cli-0");
            assertEquals(OtherUser.uid(), Files.getAttribute(dir, "unix:uid", LinkOption.NOFOLLOW_LINKS), "squatted");
            assertFalse(agentColumnSaysYes(tmp, pid), "list does not take the attacker's socket for an agent");

            Result threads = CliProcess.run(tmp.wrapper(), Jdks.current(), CliProcess.jar(), "threads", pid, "--json");
            assertEquals(0, threads.exit(), threads.toString());
            Json.find(Json.parse(threads.out()).path("threads"), "name", "counter");
            assertFalse(threads.out().contains("FORGED"), threads.out());
            assertEquals("0", forged.ask("received"), "not a byte went to the attacker");

            assertEquals(0, Files.getAttribute(dir, "unix:uid", LinkOption.NOFOLLOW_LINKS), "root's agent took its directory back");
            assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(dir, LinkOption.NOFOLLOW_LINKS)));
            assertTrue(agentColumnSaysYes(tmp, pid), "the real agent is listed");
        }
    }

    @Test
    void aDirectoryTheJvmsUserCannotTakeBackIsNamedAndNothingIsSent() throws Exception {
        List<String> asNobody = List.of("setpriv", "--reuid=" + NOBODY, "--regid=" + NOBODY, "--clear-groups");
        String squatted = "/tmp/.jvmti-cli-" + NOBODY;
        try (PrivateTmp tmp = PrivateTmp.create();
             TargetJvm target = TargetJvm.startWrapped(tmp.wrapper(asNobody), Container.classPath(), Jdks.current(), CounterTarget.class, List.of());
             TargetJvm forged = forgedAgent(tmp, OtherUser.as(), squatted, target.pid())) {
            String pid = Long.toString(target.pid());
            assertFalse(agentColumnSaysYes(tmp, pid), "list does not take the attacker's socket for an agent");

            Result threads = CliProcess.run(tmp.wrapper(), Jdks.current(), CliProcess.jar(), "threads", pid);
            assertEquals(13, threads.exit(), threads.toString());
            assertEquals("jvmti-cli: the agent's socket directory /proc/" + pid + "/root" + squatted + " belongs to uid " + OtherUser.uid()
                    + ", not to the JVM's user (uid " + NOBODY + ") or root: not trusted (another user may have made it to answer"
                    + " in the agent's place); remove it and run again\n", threads.err());
            assertEquals("", threads.out());
            assertEquals("0", forged.ask("received"), "not a byte went to the attacker");
        }
    }

    @Test
    void aListenerThatIsNotTheJvmIsRefusedBeforeAByteIsSent() throws Exception {
        try (PrivateTmp tmp = PrivateTmp.create();
             TargetJvm target = TargetJvm.startWrapped(tmp.wrapper(), Container.classPath(), Jdks.current(), CounterTarget.class, List.of());
             TargetJvm forged = forgedAgent(tmp, List.of(), "/tmp/.jvmti-cli-0", target.pid())) {
            String pid = Long.toString(target.pid());
            assertFalse(agentColumnSaysYes(tmp, pid), "list does not take another process's socket for the agent");

            Result threads = CliProcess.run(tmp.wrapper(), Jdks.current(), CliProcess.jar(), "threads", pid);
            assertEquals(13, threads.exit(), threads.toString());
            assertEquals("jvmti-cli: the agent's socket /proc/" + pid + "/root/tmp/.jvmti-cli-0/" + pid + ".sock is answered by process "
                    + forged.pid() + " (uid 0), not by JVM " + pid + " (uid 0): not trusted\n", threads.err());
            assertEquals("0", forged.ask("received"), "not a byte went to the other process");
            assertTrue(Long.parseLong(forged.ask("connections")) > 0, "the CLI did connect, and sent nothing");
        }
    }

    private static TargetJvm forgedAgent(PrivateTmp tmp, List<String> user, String dir, long pid) {
        return TargetJvm.startWrapped(tmp.wrapper(user), Container.classPath(), Jdks.current(), ForgedAgent.class, List.of(),
                dir + "/" + pid + ".sock", Long.toString(pid));
    }

    /** Whether `list`, run in the namespace, says an agent is resident in pid. */
    private static boolean agentColumnSaysYes(PrivateTmp tmp, String pid) {
        Result list = CliProcess.run(tmp.wrapper(), Jdks.current(), CliProcess.jar(), "list");
        assertEquals(0, list.exit(), list.toString());
        String row = list.out().lines().filter(line -> line.strip().startsWith(pid + " ")).findFirst()
                .orElseThrow(() -> new AssertionError(pid + " not listed: " + list));
        return List.of(row.strip().split("\\s+")).contains("yes");
    }
}
