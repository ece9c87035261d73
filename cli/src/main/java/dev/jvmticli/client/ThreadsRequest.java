package dev.jvmticli.client;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code threads}: the live platform threads, with their state and CPU time.
 *
 * @param vmThreads the JVM's own threads too (compiler, GC, VM thread...)
 * @param usage     with each thread's CPU time, its user and system CPU apart and allocated bytes,
 *                  and the JVM's pause totals before and after ({@link UsageRead})
 */
public record ThreadsRequest(boolean vmThreads, boolean usage) implements AgentRequest {
    /** The Java threads alone. */
    public static final ThreadsRequest JAVA_THREADS = new ThreadsRequest(false, false);

    public ThreadsRequest withVmThreads(boolean with) {
        return new ThreadsRequest(with, usage);
    }

    public ThreadsRequest withUsage(boolean with) {
        return new ThreadsRequest(vmThreads, with);
    }

    @Override
    public String command() {
        return "threads";
    }

    @Override
    public Map<String, Object> arguments() {
        Map<String, Object> arguments = new LinkedHashMap<>();
        if (vmThreads) {
            arguments.put("vmThreads", true);
        }
        if (usage) {
            arguments.put("usage", true);
        }
        return arguments;
    }
}
