package dev.jvmticli.client;

import java.util.List;

/**
 * The answer to {@code stacks}: every chosen thread with its frames and lock facts.
 *
 * @param time              when the agent took it, epoch milliseconds
 * @param lockSource        {@code jvmti} (start-up mode), {@code snapshot} (live attach, JDK 25+),
 *                          {@code management} (live attach) or {@code threadDump} (asked with
 *                          synchronizers: everything of one dump at one safepoint)
 * @param lockFactsComplete false when some lock facts could not be collected
 * @param vmThreads         the JVM's own threads, which JVMTI does not show (they have no Java frames);
 *                          null when not asked for or when the JVM does not name them
 * @param synchronizers     the ownable synchronizers the platform threads own, of the same moment as
 *                          their frames; null when not asked for (or an agent of an older build did
 *                          not take them)
 * @param cpuRead           when the agent read the threads' CPU times; null when the answer does not say
 * @param usage             what was read with them when asked for ({@link StacksRequest#usage()}), null otherwise
 */
public record StackDump(long time, String lockSource, boolean lockFactsComplete, List<ThreadStack> threads, List<VmThread> vmThreads,
                        OwnedSynchronizers synchronizers, CpuRead cpuRead, UsageRead usage) {
    public StackDump(long time, String lockSource, boolean lockFactsComplete, List<ThreadStack> threads) {
        this(time, lockSource, lockFactsComplete, threads, null, null, null, null);
    }

    public StackDump(long time, String lockSource, boolean lockFactsComplete, List<ThreadStack> threads, List<VmThread> vmThreads) {
        this(time, lockSource, lockFactsComplete, threads, vmThreads, null, null, null);
    }

    public StackDump(long time, String lockSource, boolean lockFactsComplete, List<ThreadStack> threads, List<VmThread> vmThreads,
                     OwnedSynchronizers synchronizers, CpuRead cpuRead) {
        this(time, lockSource, lockFactsComplete, threads, vmThreads, synchronizers, cpuRead, null);
    }
}
