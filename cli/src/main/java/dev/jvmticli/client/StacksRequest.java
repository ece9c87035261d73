package dev.jvmticli.client;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code stacks}: the platform threads' stacks and lock facts. Made by {@link #of}, then told what
 * else by name: {@code StacksRequest.of(ids, depth).withOwned(true)}.
 *
 * @param threadIds the threads to include, or null for all
 * @param maxDepth  frames per thread at most (also the frames the lock facts are checked against)
 * @param frames    whether the answer carries the frames
 * @param owned     whether to collect the monitors each thread owns
 * @param vmThreads the JVM's own threads too ({@link StackDump#vmThreads})
 * @param synchronizers the ownable synchronizers each thread owns too ({@link StackDump#synchronizers}):
 *                  then frames, owned monitors and synchronizers all come from one dump at one
 *                  safepoint, which walks the heap, as jstack -l's do
 * @param usage     with each thread's CPU time, its user and system CPU apart and allocated bytes,
 *                  and the JVM's pause totals before and after ({@link UsageRead}); not with synchronizers
 */
public record StacksRequest(Collection<Long> threadIds, int maxDepth, boolean frames, boolean owned, boolean vmThreads,
                            boolean synchronizers, boolean usage) implements AgentRequest {
    /** The frames of these threads (null: all), maxDepth at most each, with what they wait for. */
    public static StacksRequest of(Collection<Long> threadIds, int maxDepth) {
        return new StacksRequest(threadIds, maxDepth, true, false, false, false, false);
    }

    public StacksRequest withFrames(boolean with) {
        return new StacksRequest(threadIds, maxDepth, with, owned, vmThreads, synchronizers, usage);
    }

    public StacksRequest withOwned(boolean with) {
        return new StacksRequest(threadIds, maxDepth, frames, with, vmThreads, synchronizers, usage);
    }

    public StacksRequest withVmThreads(boolean with) {
        return new StacksRequest(threadIds, maxDepth, frames, owned, with, synchronizers, usage);
    }

    public StacksRequest withSynchronizers(boolean with) {
        return new StacksRequest(threadIds, maxDepth, frames, owned, vmThreads, with, usage);
    }

    public StacksRequest withUsage(boolean with) {
        return new StacksRequest(threadIds, maxDepth, frames, owned, vmThreads, synchronizers, with);
    }

    @Override
    public String command() {
        return "stacks";
    }

    @Override
    public Map<String, Object> arguments() {
        Map<String, Object> arguments = new LinkedHashMap<>();
        if (vmThreads) {
            arguments.put("vmThreads", true);
        }
        if (threadIds != null) {
            arguments.put("threads", threadIds);
        }
        arguments.put("maxDepth", maxDepth);
        arguments.put("frames", frames);
        arguments.put("owned", owned);
        if (synchronizers) {
            arguments.put("synchronizers", true);
        }
        if (usage) {
            arguments.put("usage", true);
        }
        return arguments;
    }
}
