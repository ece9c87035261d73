package dev.jvmticli.shell;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.jvmticli.client.AgentClient;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A stand-in agent on a UNIX socket that answers hello and threads (one thread, "fake-main"),
 * counts the connections it accepts and can drop them, as a detached agent would.
 */
final class FakeAgent implements AutoCloseable {
    private final ServerSocketChannel server;
    private final Path socket;
    private final AtomicInteger accepted = new AtomicInteger();
    private final AtomicInteger requests = new AtomicInteger();
    private final AtomicInteger delayed = new AtomicInteger();
    private final AtomicInteger released = new AtomicInteger();
    private final List<SocketChannel> clients = new CopyOnWriteArrayList<>();
    private volatile long answerDelayMillis;

    FakeAgent(Path socket) throws IOException {
        this.socket = socket;
        server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        server.bind(UnixDomainSocketAddress.of(socket));
        Thread acceptor = new Thread(this::acceptAll, "fake agent");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    Path socket() {
        return socket;
    }

    int accepted() {
        return accepted.get();
    }

    int requests() {
        return requests.get();
    }

    /** How many answers have been held back by answerDelay so far. */
    int delayed() {
        return delayed.get();
    }

    /** How many answers held back by answerDelay have been let go after it so far. */
    int released() {
        return released.get();
    }

    void answerDelay(long millis) {
        answerDelayMillis = millis;
    }

    /** Closes every client connection, as a detach does. */
    void dropClients() throws IOException {
        for (SocketChannel client : clients) {
            client.close();
        }
        clients.clear();
    }

    private void acceptAll() {
        try {
            while (true) {
                SocketChannel client = server.accept();
                accepted.incrementAndGet();
                clients.add(client);
                Thread serve = new Thread(() -> serve(client), "fake agent client");
                serve.setDaemon(true);
                serve.start();
            }
        } catch (IOException e) {
            // closed
        }
    }

    private void serve(SocketChannel client) {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(Channels.newInputStream(client), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                requests.incrementAndGet();
                JsonNode request = AgentClient.mapper().readTree(line);
                ObjectNode answer = AgentClient.mapper().createObjectNode();
                answer.put("v", 1).put("id", request.path("id").asLong()).put("ok", true);
                String command = request.path("cmd").asText();
                if (command.equals("vthreads")) {
                    answer.put("ok", false);
                    answer.set("error", AgentClient.mapper().readTree(
                            "{\"code\":\"no_virtual_threads\",\"message\":\"no virtual threads in this JVM\"}"));
                } else if (command.equals("hello")) {
                    answer.set("result", AgentClient.mapper().readTree(
                            "{\"agent\":\"fake\",\"protocol\":2,\"pid\":1,\"phase\":\"attach\",\"jvm\":{},\"capabilities\":[]}"));
                } else {
                    if (answerDelayMillis > 0) {
                        delayed.incrementAndGet();
                        Thread.sleep(answerDelayMillis);
                        released.incrementAndGet();
                    }
                    answer.set("result", AgentClient.mapper().readTree("{\"threads\":[{\"id\":1,\"name\":\"fake-main\",\"state\":\"RUNNABLE\","
                            + "\"flags\":[],\"daemon\":false,\"priority\":5,\"group\":\"main\",\"cpuNanos\":1000000,\"nid\":7,\"agent\":false}]}"));
                }
                client.write(ByteBuffer.wrap((AgentClient.mapper().writeValueAsString(answer) + "\n").getBytes(StandardCharsets.UTF_8)));
            }
        } catch (IOException | InterruptedException e) {
            // the client went away, or was dropped
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
        dropClients();
    }
}
