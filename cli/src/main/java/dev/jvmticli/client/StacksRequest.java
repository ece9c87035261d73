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
 */
public record StacksRequest(Collection<Long> threadIds, int maxDepth, boolean frames, boolean owned, boolean vmThreads,
                            boolean synchronizers) implements AgentRequest {
    /** The frames of these threads (null: all), maxDepth at most each, with what they wait for. */
    public static StacksRequest of(Collection<Long> threadIds, int maxDepth) {
        return new StacksRequest(threadIds, maxDepth, true, false, false, false);
    }

    public StacksRequest withFrames(boolean with) {
        return new StacksRequest(threadIds, maxDepth, with, owned, vmThreads, synchronizers);
    }

    public StacksRequest withOwned(boolean with) {
        return new StacksRequest(threadIds, maxDepth, frames, with, vmThreads, synchronizers);
    }

    public StacksRequest withVmThreads(boolean with) {
        return new StacksRequest(threadIds, maxDepth, frames, owned, with, synchronizers);
    }

    public StacksRequest withSynchronizers(boolean with) {
        return new StacksRequest(threadIds, maxDepth, frames, owned, vmThreads, with);
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
        return arguments;
    }
}
