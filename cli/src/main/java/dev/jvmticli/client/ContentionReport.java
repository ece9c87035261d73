package dev.jvmticli.client;

import java.util.List;

/**
 * The answer to {@code contention.stop}: contended monitor enters by monitor and by (monitor,
 * thread, stack), with the time blocked. Frames are {@code [method index, bci, line]}, innermost first.
 * At the window's end (untilNanos, the target's monotonic clock): the enters still waiting
 * (counted in their monitor and stack too, their time until the end), and the threads, platform and
 * virtual, read blocked entering a monitor then that had no enter event in the window, blocked since
 * before it (blockedBeforeNotKnown says why those could not be told, null when they could;
 * virtualBlockedBeforeNotKnown why the virtual ones could not, null when they could or there are none).
 */
public record ContentionReport(long durationNanos, long events, long dropped, List<Monitor> monitors,
                               List<Stack> stacks, List<MethodRef> methods, long untilNanos, List<StillWaiting> stillWaiting,
                               List<BlockedBefore> blockedBefore, long blockedBeforeDropped, String blockedBeforeNotKnown,
                               String virtualBlockedBeforeNotKnown) {
    public ContentionReport {
        stillWaiting = stillWaiting == null ? List.of() : stillWaiting;
        blockedBefore = blockedBefore == null ? List.of() : blockedBefore;
    }

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

    /** A contended enter still waiting at the window's end: its monitor (an id of monitors), thread, time so far and stack. */
    public record StillWaiting(int monitor, String thread, Long threadId, Boolean virtual, long waitedNanos, long[][] frames) {
    }

    /**
     * A thread (virtual: a virtual thread, never its carrier) blocked entering a monitor since before the window, read at its end: the monitor
     * (Java class name, identity hash) and its owner then (ownerId null when none or not known; ownerUnknown
     * when no source could tell).
     */
    public record BlockedBefore(String thread, long threadId, String className, long identityHash, String owner, Long ownerId,
                                boolean ownerUnknown, Boolean virtual) {
    }
}
