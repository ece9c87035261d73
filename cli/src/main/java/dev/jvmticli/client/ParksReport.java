package dev.jvmticli.client;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/**
 * The answer to {@code parks.stop}: the parks (with a blocker or without) that ended in the window, by blocker and
 * by (blocker, stack), and the virtual threads' parks pinned to their carrier. Frames are
 * {@code [method index, bci, line]}, innermost first (the park method itself first). The window is
 * [sinceNanos, untilNanos] on the target's monotonic clock (System.nanoTime's on Linux): a park that
 * began before it, or ended after, is not counted. ownerStacks: the stacks of the owners of
 * exclusively owned blockers (a ReentrantLock's exclusiveOwnerThread), platform or virtual, read by a
 * thread of the agent's as a wait began, at most one a millisecond, each kept only when the owner still
 * owned the blocker after the read (ownerSamplesStale counts those that were not; ownerReadsDropped the
 * reads not made: that thread was 16 behind, or the window ended first). stillWaiting: the parks in
 * progress at the window's end, each read then with its stack and blocker; stillWaitingDropped those
 * past the agent's table, stillWaitingUnread those that ended (or whose thread did) while they were
 * read, untracked the parks of threads past the agent's thread table, which are not followed.
 * parkedBefore: the threads, platform and virtual, read parked at the window's end that began no park
 * in it (parked since before it; parkedBeforeDropped those past the agent's table; parkedBeforeIncomplete
 * why some virtual ones may be missing, null when none are).
 */
public record ParksReport(long durationNanos, long sinceNanos, long untilNanos, long parks, long dropped, String restoreFailure, List<ProbedClass> classes,
                          List<Lock> locks, List<Site> sites, Pinned pinned, List<MethodRef> methods, long ownerSamplesStale,
                          long ownerReadsDropped, List<OwnerStack> ownerStacks, List<StillWaiting> stillWaiting, long stillWaitingDropped,
                          long stillWaitingUnread, long untracked, List<ParkedBefore> parkedBefore, long parkedBeforeDropped,
                          String parkedBeforeIncomplete) {
    public ParksReport {
        ownerStacks = ownerStacks == null ? List.of() : ownerStacks; // an agent before owner stacks answers none
        stillWaiting = stillWaiting == null ? List.of() : stillWaiting;
        parkedBefore = parkedBefore == null ? List.of() : parkedBefore;
    }

    /** A thread (platform or virtual) parked since before the window, read at its end: blocker (lock: its id), the blocker's owner then, stack. */
    public record ParkedBefore(int lock, String thread, Long threadId, Boolean virtual, ThreadRef owner, long[][] frames) {
    }

    /** A park still in progress at the window's end: its blocker (lock: its id), thread, time so far, the blocker's owner then, and its stack. */
    public record StillWaiting(int lock, String thread, Long threadId, Boolean virtual, long waitedNanos, ThreadRef owner, long[][] frames) {
    }

    /** A thread: its name, Java id and whether it is virtual (id and virtual null when not known). */
    public record ThreadRef(String thread, Long threadId, Boolean virtual) {
    }

    /** A class probed: its signature, its SHA-256 when first read and when read again after it was put back. */
    public record ProbedClass(String name, String sha256, String restoredSha256) {
        public boolean restored() {
            return sha256 != null && sha256.equals(restoredSha256);
        }
    }

    /**
     * A blocker: class signature (null for the one entry of the parks without a blocker), identity hash, and kind: {@code acquire} (an AQS, AQLS or StampedLock: a
     * lock, semaphore, latch), {@code signal} (their ConditionObject: await) or {@code park} (anything else).
     */
    public record Lock(int id, @JsonProperty("class") String classSignature, long identityHash, String kind, long count,
                       long totalNanos, long maxNanos) {
    }

    /** A thread and how many waits (or waits it owned the blocker at the start of); thread id and virtual null when not known. */
    public record ThreadCount(String thread, Long threadId, Boolean virtual, long count) {
    }

    /**
     * Where threads parked on one blocker: the waits, their durations ({@code [low, high, count]} buckets),
     * the threads that waited, and the owner each wait began with (noOwner: none, or a blocker that has none).
     */
    public record Site(int lock, long count, long totalNanos, long maxNanos, long minNanos, long[][] buckets,
                       List<ThreadCount> waiters, long otherWaiters, List<ThreadCount> owners, long otherOwners, long noOwner,
                       long[][] frames) {
    }

    /** The owner of a blocker (lock: its id), in one stack, and how many reads found it there. */
    public record OwnerStack(int lock, String thread, Long threadId, Boolean virtual, long count, long[][] frames) {
    }

    /** Virtual threads' parks on their carrier: watched (the JDK has virtual threads), counted, and the first episodes kept. */
    public record Pinned(boolean watched, long count, long totalNanos, long maxNanos, List<Episode> episodes) {
    }

    /** One pinned park: the virtual thread, how long, and its stack. */
    public record Episode(String thread, Long threadId, Boolean virtual, long nanos, long[][] frames) {
    }
}
