package dev.jvmticli.client;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;

/**
 * The first UNIX-domain socket of a JVM costs a cold run ~20 ms of class initialization before any
 * byte moves: the {@code SelectorProvider} lookup through {@code ServiceLoader}, and the
 * {@code SecureRandom} of {@code UnixDomainSockets}, which sets up the security providers. No public
 * API reaches a UNIX-domain connection without them. Started first thing, on a thread of its own,
 * that work overlaps the command's own start-up instead of following it; a connection opened
 * meanwhile waits for whatever part is not done (the JVM's class initialization lock).
 */
public final class SocketWarmUp implements Runnable {
    private SocketWarmUp() {
    }

    public static void start() {
        Thread thread = new Thread(new SocketWarmUp(), "jvmti-cli socket warm-up");
        thread.setDaemon(true);
        thread.start();
    }

    /** Opens, as {@link ChannelStreams} does, an unconnected socket and a selector, and closes them. */
    @Override
    public void run() {
        try (SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX); Selector selector = Selector.open()) {
            channel.configureBlocking(false);
            channel.register(selector, SelectionKey.OP_READ);
        } catch (IOException | RuntimeException e) {
            // nothing to warm up: the command's own connection reports what is wrong
        }
    }
}
