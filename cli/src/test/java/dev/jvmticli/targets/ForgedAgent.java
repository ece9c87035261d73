package dev.jvmticli.targets;

import dev.jvmticli.testing.TargetMain;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An attacker's stand-in for the agent: makes the socket directory (0700, its own) if it is not
 * there, listens on the socket path given as its argument, counts every byte a client sends, and
 * answers hello as the agent of the pid given second would and threads with one forged row.
 * Commands: {@code received} (bytes received so far), {@code connections} (clients accepted).
 */
public final class ForgedAgent {
    static final String FORGED_THREAD = "FORGED-BY-ANOTHER-USER";
    private static final Pattern ID = Pattern.compile("\"id\":(\\d+)");
    private static final AtomicLong RECEIVED = new AtomicLong();
    private static final AtomicLong CONNECTIONS = new AtomicLong();

    private ForgedAgent() {
    }

    public static void main(String[] args) throws Exception {
        Path socket = Path.of(args[0]);
        long pid = Long.parseLong(args[1]);
        if (!Files.isDirectory(socket.getParent())) {
            Files.createDirectory(socket.getParent(), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        }
        ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        server.bind(UnixDomainSocketAddress.of(socket));
        Thread acceptor = new Thread(() -> {
            while (true) {
                try {
                    SocketChannel client = server.accept();
                    CONNECTIONS.incrementAndGet();
                    Thread answerer = new Thread(() -> answer(client, pid), "forged-client");
                    answerer.setDaemon(true);
                    answerer.start();
                } catch (IOException e) {
                    return;
                }
            }
        }, "forged-acceptor");
        acceptor.setDaemon(true);
        acceptor.start();
        TargetMain.serve(line -> switch (line) {
            case "received" -> Long.toString(RECEIVED.get());
            case "connections" -> Long.toString(CONNECTIONS.get());
            default -> "unknown command " + line;
        });
    }

    private static void answer(SocketChannel client, long pid) {
        try (client; InputStream in = Channels.newInputStream(client); OutputStream out = Channels.newOutputStream(client)) {
            StringBuilder line = new StringBuilder();
            int b;
            while ((b = in.read()) >= 0) {
                RECEIVED.incrementAndGet();
                if (b != '\n') {
                    line.append((char) b);
                    continue;
                }
                Matcher id = ID.matcher(line);
                String answerId = id.find() ? id.group(1) : "0";
                String result = line.indexOf("\"hello\"") >= 0
                        ? "{\"agent\":\"0.1.0\",\"protocol\":4,\"pid\":" + pid + ",\"phase\":\"attach\",\"jvm\":{\"name\":\"OpenJDK 64-Bit Server VM\","
                          + "\"vendor\":\"x\",\"version\":\"17\",\"specVersion\":\"17\",\"info\":\"x\"},\"capabilities\":[],\"commands\":[\"hello\",\"threads\"]}"
                        : "{\"lockFactsComplete\":true,\"threads\":[{\"id\":1,\"name\":\"" + FORGED_THREAD + "\",\"state\":\"RUNNABLE\",\"flags\":[],"
                          + "\"daemon\":false,\"priority\":5,\"group\":\"main\",\"cpuNanos\":1,\"nid\":1,\"osState\":\"running\",\"osPriority\":0,"
                          + "\"started\":1,\"tid\":\"0x1\"}]}";
                out.write(("{\"v\":7,\"id\":" + answerId + ",\"ok\":true,\"result\":" + result + "}\n").getBytes(StandardCharsets.UTF_8));
                out.flush();
                line.setLength(0);
            }
        } catch (IOException e) {
            // the client went away
        }
    }
}
