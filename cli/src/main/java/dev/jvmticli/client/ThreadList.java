package dev.jvmticli.client;

import java.util.List;

/**
 * The answer to {@code threads}; lockFactsComplete is false when some waits could not be read.
 * vmThreads are the JVM's own threads, null when not asked for or when the JVM does not name them;
 * cpuRead when the agent read their CPU times, null when the answer does not say; usage what was
 * read with them when asked for ({@link ThreadsRequest#usage()}), null otherwise.
 */
public record ThreadList(boolean lockFactsComplete, List<ThreadEntry> threads, List<VmThread> vmThreads, CpuRead cpuRead,
                         UsageRead usage) {
    public ThreadList(boolean lockFactsComplete, List<ThreadEntry> threads) {
        this(lockFactsComplete, threads, null, null, null);
    }

    public ThreadList(boolean lockFactsComplete, List<ThreadEntry> threads, List<VmThread> vmThreads, CpuRead cpuRead) {
        this(lockFactsComplete, threads, vmThreads, cpuRead, null);
    }
}
