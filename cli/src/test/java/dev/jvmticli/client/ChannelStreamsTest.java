package dev.jvmticli.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.SocketTimeoutException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ChannelStreamsTest {
    @TempDir
    Path directory;

    /**
     * Ctrl-C while a keep-alive hello's answer is under way (SIGTERM's hook interrupts the window's
     * thread): held, the answer is still read, and the interrupt kept for the window to end on.
     * Before, the interrupted select read as "did not answer hello within 10 s" and the report was lost.
     */
    @Test
    void anInterruptDuringAHeldReadLetsTheAnswerArriveAndIsKept() throws Exception {
        Path address = directory.resolve("agent.sock");
        try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            server.bind(UnixDomainSocketAddress.of(address));
            SocketChannel client = SocketChannel.open(UnixDomainSocketAddress.of(address));
            try (SocketChannel agent = server.accept(); ChannelStreams streams = new ChannelStreams(client, Duration.ofSeconds(10))) {
                streams.holdInterrupts(true);
                Thread reader = Thread.currentThread();
                CompletableFuture<Void> answer = CompletableFuture.runAsync(() -> {
                    try {
                        Thread.sleep(200);
                        reader.interrupt();
                        Thread.sleep(300);
                        agent.write(ByteBuffer.wrap("{\"ok\":true}\n".getBytes(StandardCharsets.UTF_8)));
                    } catch (InterruptedException | IOException e) {
                        throw new IllegalStateException(e);
                    }
                });
                long started = System.nanoTime();
                byte[] line = new byte[12];
                int read = 0;
                while (read < line.length) {
                    read += streams.input.read(line, read, line.length - read);
                }
                long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
                assertTrue(Thread.interrupted(), "the interrupt is kept");
                assertEquals("{\"ok\":true}\n", new String(line, StandardCharsets.UTF_8));
                assertTrue(millis >= 400, "waited for the answer: " + millis + " ms");
                answer.get(10, TimeUnit.SECONDS);
            }
        } finally {
            Files.deleteIfExists(address);
        }
    }

    /** Not held (any other exchange), an interrupt ends the wait at once: the shell's cancel, which then drops the connection. */
    @Test
    void anInterruptEndsAWaitThatIsNotHeld() throws Exception {
        Path address = directory.resolve("agent.sock");
        try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            server.bind(UnixDomainSocketAddress.of(address));
            SocketChannel client = SocketChannel.open(UnixDomainSocketAddress.of(address));
            try (SocketChannel agent = server.accept(); ChannelStreams streams = new ChannelStreams(client, Duration.ofSeconds(10))) {
                Thread.currentThread().interrupt();
                long started = System.nanoTime();
                assertThrows(SocketTimeoutException.class, () -> streams.input.read(new byte[1], 0, 1));
                assertTrue(Thread.interrupted(), "the interrupt is kept");
                assertTrue(System.nanoTime() - started < TimeUnit.SECONDS.toNanos(5), "ended before the timeout");
            }
        } finally {
            Files.deleteIfExists(address);
        }
    }
}
