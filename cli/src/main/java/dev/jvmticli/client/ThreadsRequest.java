package dev.jvmticli.client;

import java.util.Map;

/**
 * {@code threads}: the live platform threads, with their state and CPU time.
 *
 * @param vmThreads the JVM's own threads too (compiler, GC, VM thread...)
 */
public record ThreadsRequest(boolean vmThreads) implements AgentRequest {
    /** The Java threads alone. */
    public static final ThreadsRequest JAVA_THREADS = new ThreadsRequest(false);

    public ThreadsRequest withVmThreads(boolean with) {
        return new ThreadsRequest(with);
    }

    @Override
    public String command() {
        return "threads";
    }

    @Override
    public Map<String, Object> arguments() {
        return vmThreads ? Map.of("vmThreads", true) : Map.of();
    }
}
