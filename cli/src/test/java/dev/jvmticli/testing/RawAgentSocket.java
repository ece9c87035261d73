package dev.jvmticli.testing;

import java.io.IOException;
import java.io.InputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** A bare connection to an agent socket, for sending bytes the real client never would. */
public final class RawAgentSocket implements AutoCloseable {
    private final SocketChannel channel;
    private final InputStream in;

    public RawAgentSocket(long pid) throws IOException {
        Path socket = reachedSocketPath(pid);
        channel = SocketChannel.open(StandardProtocolFamily.UNIX);
        channel.connect(UnixDomainSocketAddress.of(socket));
        in = Channels.newInputStream(channel);
    }

    public static Path socketPath(long pid) throws IOException {
        return Path.of("/tmp/.jvmti-cli-" + Files.getAttribute(Path.of("/proc/self"), "unix:uid") + "/" + pid + ".sock");
    }

    /**
     * The socket of a running JVM as reached through its root (/proc/PID/root): a JVM in a Debian
     * root's mount namespace has a /tmp of its own; any other's root is this one's.
     */
    public static Path reachedSocketPath(long pid) throws IOException {
        return Path.of("/proc", Long.toString(pid), "root").resolve(Path.of("/").relativize(socketPath(pid)));
    }

    public void send(String text) throws IOException {
        send(text.getBytes(StandardCharsets.UTF_8));
    }

    public void send(byte[] bytes) throws IOException {
        CommandLog.record("raw agent socket", new String(bytes, 0, Math.min(bytes.length, 200), StandardCharsets.UTF_8).strip());
        ByteBuffer buffer = ByteBuffer.wrap(bytes);
        while (buffer.hasRemaining()) {
            channel.write(buffer);
        }
    }

    /** Reads one answer line; null when the agent closed the connection. */
    public String readLine() throws IOException {
        StringBuilder line = new StringBuilder();
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        int b;
        while ((b = in.read()) >= 0 && b != '\n') {
            bytes.write(b);
        }
        if (b < 0 && bytes.size() == 0) {
            return null;
        }
        line.append(bytes.toString(StandardCharsets.UTF_8));
        return line.toString();
    }

    /** Whether the agent has hung up on this connection (nothing else pending), asked without blocking. */
    public boolean hungUp() throws IOException {
        channel.configureBlocking(false);
        try {
            return channel.read(ByteBuffer.allocate(1)) < 0;
        } finally {
            channel.configureBlocking(true);
        }
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
