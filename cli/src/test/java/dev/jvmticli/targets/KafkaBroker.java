package dev.jvmticli.targets;

import dev.jvmticli.testing.TargetMain;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.UUID;

/**
 * An Apache Kafka broker as its own start script runs it, for KafkaBrokerIT: KRaft, one node that
 * is broker and controller, its storage formatted first as {@code kafka-storage format} does
 * (StorageTool, in this JVM), then {@code kafka.Kafka} on the main thread. The Kafka jars are on
 * this JVM's class path only, never on the tests', so they are reached by name. Prints READY when
 * the broker's client port (the second argument) accepts connections.
 */
public final class KafkaBroker {
    private KafkaBroker() {
    }

    public static void main(String[] args) throws Exception {
        // "--cluster-id=ID": a random id may begin with '-', which the separate form reads as an option
        String config = args[0];
        int port = Integer.parseInt(args[1]);
        int formatted = (int) Class.forName("kafka.tools.StorageTool").getMethod("execute", String[].class, PrintStream.class)
                .invoke(null, new String[] {"format", "--cluster-id=" + clusterId(), "--config", config}, System.err);
        if (formatted != 0) {
            throw new IllegalStateException("kafka-storage format ended with " + formatted);
        }
        TargetMain.start("target control", () -> {
            try {
                awaitListening(port);
                TargetMain.serve();
            } catch (Exception e) {
                e.printStackTrace();
                Runtime.getRuntime().halt(1);
            }
        });
        Class.forName("kafka.Kafka").getMethod("main", String[].class).invoke(null, (Object) new String[] {config});
    }

    /** A cluster id as {@code kafka-storage random-uuid} makes one: 16 random bytes, URL-safe Base64 without padding. */
    private static String clusterId() {
        UUID uuid = UUID.randomUUID();
        ByteBuffer bytes = ByteBuffer.allocate(16).putLong(uuid.getMostSignificantBits()).putLong(uuid.getLeastSignificantBits());
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes.array());
    }

    private static void awaitListening(int port) throws InterruptedException {
        while (true) {
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress("127.0.0.1", port), 1000);
                return;
            } catch (IOException notYet) {
                Thread.sleep(100);
            }
        }
    }
}
