package dev.jvmticli.testing;

import dev.jvmticli.client.AgentClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;

/** Direct connections to a resident agent, to look at what it holds or hold a session open. */
public final class AgentProbe {
    private AgentProbe() {
    }

    public static AgentClient open(long pid) {
        CommandLog.record("agent client", "a direct connection to JVM " + pid);
        try {
            return AgentClient.connect(RawAgentSocket.reachedSocketPath(pid), Duration.ofSeconds(30), "JVM " + pid);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The capabilities the agent says it holds now (`hello`). */
    public static List<String> capabilities(long pid) {
        try (AgentClient client = open(pid)) {
            return client.hello().capabilities();
        }
    }

    /** Waits until the agent holds, or no longer holds, the capability; returns the last list seen. */
    public static List<String> awaitCapability(long pid, String capability, boolean held) throws InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        List<String> now = capabilities(pid);
        while (now.contains(capability) != held && System.nanoTime() < deadline) {
            Thread.sleep(20);
            now = capabilities(pid);
        }
        return now;
    }
}
