package dev.jvmticli.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;

/**
 * A tiny client run in its own process (as another user, say): connects to an agent socket,
 * sends a hello request and prints one line: {@code REFUSED <reason>} if it could not connect,
 * {@code CLOSED} if the agent hung up without a byte, or {@code ANSWER <line>}.
 */
public final class SocketProbe {
    private SocketProbe() {
    }

    public static void main(String[] args) throws Exception {
        SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX);
        try {
            channel.connect(UnixDomainSocketAddress.of(args[0]));
        } catch (IOException e) {
            System.out.println("REFUSED " + e.getMessage());
            return;
        }
        try (channel) {
            try {
                channel.write(ByteBuffer.wrap("{\"v\":7,\"id\":1,\"cmd\":\"hello\"}\n".getBytes(StandardCharsets.UTF_8)));
            } catch (IOException e) {
                // already closed by the agent: what follows reads the end
            }
            InputStream in = Channels.newInputStream(channel);
            ByteArrayOutputStream line = new ByteArrayOutputStream();
            int b;
            try {
                while ((b = in.read()) >= 0 && b != '\n') {
                    line.write(b);
                }
            } catch (IOException e) {
                b = -1; // reset by the agent
            }
            System.out.println(line.size() == 0 && b < 0 ? "CLOSED" : "ANSWER " + line.toString(StandardCharsets.UTF_8));
        }
    }
}
