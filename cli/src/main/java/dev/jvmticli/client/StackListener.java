package dev.jvmticli.client;

import java.util.List;

/**
 * Takes the threads of a {@code stacks} answer as they are read, before the whole answer is in:
 * {@link #started} once, when the threads begin, then {@link #thread} for each in the answer's order.
 */
public interface StackListener {
    /** The dump's time and the JVM's own threads (null when not asked for or not known), before any thread. */
    void started(long time, List<VmThread> vmThreads);

    void thread(ThreadStack thread);
}
