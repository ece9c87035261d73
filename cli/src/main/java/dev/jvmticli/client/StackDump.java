package dev.jvmticli.client;

import java.util.List;

/**
 * The answer to {@code stacks}: every chosen thread with its frames and lock facts.
 *
 * @param time              when the agent took it, epoch milliseconds
 * @param lockSource        {@code jvmti} (start-up mode), {@code snapshot} (live attach, JDK 25+) or
 *                          {@code management} (live attach)
 * @param lockFactsComplete false when some lock facts could not be collected
 * @param vmThreads         the JVM's own threads, which JVMTI does not show (they have no Java frames);
 *                          null when not asked for or when the JVM does not name them
 * @param cpuRead           when the agent read the threads' CPU times; null when the answer does not say
 */
public record StackDump(long time, String lockSource, boolean lockFactsComplete, List<ThreadStack> threads, List<VmThread> vmThreads,
                        CpuRead cpuRead) {
    public StackDump(long time, String lockSource, boolean lockFactsComplete, List<ThreadStack> threads) {
        this(time, lockSource, lockFactsComplete, threads, null, null);
    }
}
