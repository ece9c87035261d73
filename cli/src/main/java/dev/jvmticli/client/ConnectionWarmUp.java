package dev.jvmticli.client;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;

/**
 * Most of a cold run's first connection is class initialization, not bytes (docs/performance.md
 * has the figures): the first UNIX-domain socket of a JVM costs time before any byte moves (the
 * {@code SelectorProvider} lookup through {@code ServiceLoader}, and the {@code SecureRandom} that
 * {@code UnixDomainSockets} makes in its static initializer, which sets up the security providers;
 * no public API reaches a UNIX-domain connection without them), and the first JSON parser more on
 * JDK 25 (Jackson's parser base class holds {@code BigDecimal} constants, and JDK 25's
 * {@code BigDecimal} computes 5^(2^16) while it initializes). Started first thing on threads of
 * their own, these overlap the command's own start-up and each other instead of following them: one
 * thread sets up the security providers while the command's own connection does the
 * {@code SelectorProvider} lookup, and then opens a socket as a connection does; the other writes and
 * reads the protocol's JSON. A connection made meanwhile waits for whatever part is not done (the
 * JVM's class initialization locks). Nothing outside this JVM sees any of it: the socket is never
 * connected, and the JSON stays in memory.
 */
public final class ConnectionWarmUp {
    private ConnectionWarmUp() {
    }

    public static void start() {
        start(() -> {
            setUpSecurityProviders();
            openSocket();
        }, "jvmti-cli socket warm-up");
        start(AgentClient::warmUpProtocol, "jvmti-cli protocol warm-up");
    }

    private static void start(Runnable part, String name) {
        Thread thread = new Thread(part, name);
        thread.setDaemon(true);
        thread.start();
    }

    /** The random generator {@code UnixDomainSockets} asks for, and with it the security providers. */
    private static void setUpSecurityProviders() {
        try {
            SecureRandom.getInstance("NativePRNGNonBlocking");
        } catch (NoSuchAlgorithmException | RuntimeException e) {
            // not this platform's: the socket sets up what it needs itself
        }
    }

    /**
     * Opens, as {@link ChannelStreams} does, an unconnected socket and a selector, selects once (the
     * first select initializes {@code sun.nio.ch.Net}, and with it {@code InetAddress}), and closes them.
     */
    private static void openSocket() {
        try (SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX); Selector selector = Selector.open()) {
            channel.configureBlocking(false);
            channel.register(selector, SelectionKey.OP_READ);
            selector.selectNow();
        } catch (IOException | RuntimeException e) {
            // nothing to warm up: the command's own connection reports what is wrong
        }
    }
}
