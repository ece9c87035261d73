package dev.jvmticli.client;

import java.util.List;

/**
 * The answer to {@code contention.stop}: contended monitor enters by monitor and by (monitor,
 * thread, stack), with the time blocked. Frames are {@code [method index, bci, line]}, innermost first.
 */
public record ContentionReport(long durationNanos, long events, long dropped, List<Monitor> monitors,
                               List<Stack> stacks, List<MethodRef> methods) {
    /** A contended monitor: its class signature, identity hash, and the owners seen while others waited. */
    public record Monitor(int id, @com.fasterxml.jackson.annotation.JsonProperty("class") String classSignature,
                          long identityHash, long count, long blockedNanos, List<Holder> holders, long otherHolders) {
    }

    /**
     * A thread seen owning the monitor while another thread was blocked on it: its name, Java id
     * and whether it is a virtual thread (id and virtual null when the agent could not tell the thread).
     */
    public record Holder(String thread, Long threadId, Boolean virtual, long seen) {
    }

    /** Where one thread (named as a Holder is) blocked on one monitor. */
    public record Stack(int monitor, String thread, Long threadId, Boolean virtual, long count, long blockedNanos, long[][] frames) {
    }
}
