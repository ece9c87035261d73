package dev.jvmticli.analysis;

import dev.jvmticli.client.LockRef;
import dev.jvmticli.client.OwnedSynchronizers;
import dev.jvmticli.client.StackDump;
import dev.jvmticli.client.ThreadEntry;
import dev.jvmticli.client.ThreadStack;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The ownable synchronizers each thread holds, for jstack's "Locked ownable synchronizers":
 * complete when they come from the agent's heap walk; otherwise only those some thread is parked
 * on, with the reason the others are not known.
 *
 * @param partialBecause null when the list is complete
 * @param notKnown       the threads whose list is not known, each with the reason
 */
public record OwnableSynchronizers(Map<Long, List<LockRef>> byOwner, String partialBecause, Map<Long, String> notKnown) {
    /**
     * From the heap walk that followed the dump. A thread's frames are of an earlier moment than
     * the walk: what the walk found it owns is what it owned at its frames only when it did not
     * run in between, which its CPU time tells (read before its frames were taken and again after
     * the walk; a thread acquires and releases its synchronizers itself). Every other thread's list
     * is not known. The JVM's own threads that JVMTI hides run no Java code and own none.
     */
    public static OwnableSynchronizers of(OwnedSynchronizers walk, StackDump dump) {
        Map<Long, String> notKnown = new HashMap<>();
        Map<Long, Long> cpuAfter = new HashMap<>();
        if (walk.cpuAfter() != null) {
            walk.cpuAfter().forEach(t -> cpuAfter.put(t.id(), t.cpuNanos()));
        }
        for (ThreadStack stack : dump.threads()) {
            ThreadEntry t = stack.thread();
            Long after = walk.cpuAfter() == null ? Long.valueOf(-1) : cpuAfter.get(t.id());
            String why = t.agent() ? null : whyNotKnown(t.cpuNanos(), after);
            if (why != null) {
                notKnown.put(t.id(), why);
            }
        }
        Map<Long, List<LockRef>> byOwner = new LinkedHashMap<>();
        for (OwnedSynchronizers.Owned owned : walk.owned()) {
            if (!notKnown.containsKey(owned.ownerId())) {
                byOwner.computeIfAbsent(owned.ownerId(), k -> new ArrayList<>()).add(owned.lock());
            }
        }
        return new OwnableSynchronizers(byOwner, walk.complete() ? null
                : "the heap holds " + walk.instances() + " synchronizers, more than the agent looks at", notKnown);
    }

    /** Why the walk may not tell what a thread owned at its frames' moment, null when it does; after is null for a thread that ended. */
    private static String whyNotKnown(long before, Long after) {
        if (before < 0 || after != null && after < 0) {
            return "no CPU time tells whether the thread ran while the heap was walked";
        }
        if (after == null) {
            return "the thread ended while the heap was walked";
        }
        return before == after ? null : "the thread ran while the heap was walked";
    }

    /** Those some thread of the dump is parked on. */
    public static OwnableSynchronizers parkedOn(StackDump dump, String partialBecause) {
        return new OwnableSynchronizers(LockTable.synchronizersByOwner(dump), partialBecause, Map.of());
    }

    /** Whether the list of a thread whose synchronizers are known holds all of them. */
    public boolean complete() {
        return partialBecause == null;
    }

    public List<LockRef> of(long threadId) {
        return byOwner.getOrDefault(threadId, List.of());
    }

    /** Why this thread's synchronizers are not known at all, null when they are (some or all: see {@link #partialBecause}). */
    public String notKnownWhy(long threadId) {
        return notKnown.get(threadId);
    }
}
