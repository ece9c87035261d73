package dev.jvmticli.client;

import java.util.List;

/**
 * The answer to {@code threads}; lockFactsComplete is false when some waits could not be read.
 * vmThreads are the JVM's own threads, null when not asked for or when the JVM does not name them.
 */
public record ThreadList(boolean lockFactsComplete, List<ThreadEntry> threads, List<VmThread> vmThreads) {
    public ThreadList(boolean lockFactsComplete, List<ThreadEntry> threads) {
        this(lockFactsComplete, threads, null);
    }
}
