package dev.jvmticli.attach;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jvmticli.payload.AgentLibrary;
import dev.jvmticli.targets.CounterTarget;
import dev.jvmticli.testing.Jdks;
import dev.jvmticli.testing.OtherUser;
import dev.jvmticli.testing.Proc;
import dev.jvmticli.testing.TargetJvm;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** HotSpot's attach listener spoken to directly, on every JDK: start-up, answers, leftovers. */
class AttachListenerIT {
    static Stream<Jdks.Jdk> jdks() {
        return Jdks.stream();
    }

    private static long deadline() {
        return System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    }

    @ParameterizedTest
    @MethodSource("jdks")
    void startsTheListenerAndReadsTheAgentsReturnCode(Jdks.Jdk jdk) throws Exception {
        try (TargetJvm target = TargetJvm.start(jdk, CounterTarget.class)) {
            TargetProcess process = TargetProcess.of(target.pid());
            AttachListener listener = new AttachListener(process);
            AttachListener.Answer properties = listener.execute(deadline(), "properties");
            assertEquals(0, properties.status());
            assertTrue(properties.output().contains("java.vm.version="), properties.output());
            assertFalse(Files.exists(Path.of("/tmp/.attach_pid" + target.pid())), "the trigger file is removed");

            String library = new AgentLibrary().extract().toString();
            AttachListener.Answer refused = listener.execute(deadline(), "load", library, "true", "v=99");
            assertEquals(0, refused.status(), "the library loaded and Agent_OnAttach ran");
            assertEquals("return code: 106", refused.output().strip(), "the agent refused options it does not know");
            assertEquals(0, Proc.agentThreads(target.pid()));
        }
    }

    /** A socket at the listener's name that the target's user does not own is not the target's: it is removed, never used. */
    @ParameterizedTest
    @MethodSource("jdks")
    void aSocketOfAnotherUserAtTheListenersNameIsRemoved(Jdks.Jdk jdk) throws Exception {
        OtherUser.assume();
        try (TargetJvm target = TargetJvm.start(jdk, CounterTarget.class)) {
            Path planted = Path.of("/tmp/.java_pid" + target.pid());
            try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
                server.bind(UnixDomainSocketAddress.of(planted));
                Files.setAttribute(planted, "unix:uid", OtherUser.uid(), LinkOption.NOFOLLOW_LINKS);
                AttachListener.Answer answer = new AttachListener(TargetProcess.of(target.pid())).execute(deadline(), "properties");
                assertEquals(0, answer.status());
                assertTrue(answer.output().contains("java.vm.version="), answer.output());
                assertEquals(0, Files.getAttribute(planted, "unix:uid", LinkOption.NOFOLLOW_LINKS), "the target's own listener replaced it");
            }
        }
    }
}
