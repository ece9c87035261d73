package dev.jvmticli.analysis;

import dev.jvmticli.client.LockRef;
import dev.jvmticli.client.OwnedSynchronizers;
import dev.jvmticli.client.StackDump;
import dev.jvmticli.client.ThreadEntry;
import dev.jvmticli.client.ThreadStack;
import dev.jvmticli.client.WaitingFor;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The ownable synchronizers each thread holds, for jstack's "Locked ownable synchronizers":
 * complete when they come with the frames from the agent's dump at one safepoint, which walks the
 * heap for them (-l); otherwise only those some thread is parked on, with the reason the others
 * are not known.
 *
 * <p>Without -l, a thread's frames are of an earlier moment than what says which synchronizers it
 * owns (a parked thread's look at its blocker's owner, of that thread's own moment). Such a list
 * is the thread's at its frames' moment only when the thread ran no Java code in between (a
 * thread takes and lets go of its synchronizers itself), which is known of a thread
 * <ul>
 *   <li>whose CPU time, read before its frames were taken and again afterwards (cpuAfter), is the
 *       same: it did not run at all;</li>
 *   <li>of a confirmed deadlock, which does not move (its threads blocked on a monitor still
 *       spin and wake now and then, inside the JVM);</li>
 *   <li>blocked entering a monitor whose owner, at its moment, is such a thread: the owner held
 *       the monitor throughout, so it could not enter it.</li>
 * </ul>
 * Any other thread's list is not known. The JVM's own threads that JVMTI hides run no Java code
 * and own none.
 *
 * @param partialBecause null when the list is complete
 * @param notKnown       the threads whose list is not known, each with the reason
 */
public record OwnableSynchronizers(Map<Long, List<LockRef>> byOwner, String partialBecause, Map<Long, String> notKnown) {
    /**
     * From the dump that took them at the same safepoint as the platform threads' frames: every
     * platform thread's list is known; a virtual thread's is not (the JVM's thread dump has no
     * virtual threads).
     */
    public static OwnableSynchronizers ofOneMoment(OwnedSynchronizers owned, StackDump dump) {
        Map<Long, List<LockRef>> byOwner = new LinkedHashMap<>();
        for (OwnedSynchronizers.Owned o : owned.owned()) {
            byOwner.computeIfAbsent(o.ownerId(), k -> new ArrayList<>()).add(o.lock());
        }
        Map<Long, String> notKnown = new HashMap<>();
        dump.threads().stream().filter(t -> t.thread().virtual())
                .forEach(t -> notKnown.put(t.thread().id(), "the JVM's thread dump has no virtual threads"));
        byOwner.keySet().removeAll(notKnown.keySet());
        return new OwnableSynchronizers(byOwner, null, notKnown);
    }

    /**
     * Those some platform thread of the dump is parked on, of the owners that ran no Java code
     * until cpuAfter was read (null: not read). Only a platform thread's look at the owner is of the
     * answer that read the owner's CPU time before any frames; a virtual thread's is of another.
     */
    public static OwnableSynchronizers parkedOn(StackDump dump, Map<Long, Long> cpuAfter, Set<Long> deadlocked, String partialBecause) {
        Map<Long, List<LockRef>> byOwner = LockTable.synchronizersByOwner(
                dump.threads().stream().filter(t -> !t.thread().virtual()).toList());
        List<ThreadStack> owners = dump.threads().stream().filter(t -> byOwner.containsKey(t.thread().id())).toList();
        Map<Long, String> notKnown = new Stillness(dump, cpuAfter, deadlocked, "the other threads were looked at").notKnown(owners);
        byOwner.keySet().removeAll(notKnown.keySet());
        return new OwnableSynchronizers(byOwner, partialBecause, notKnown);
    }

    /** Which threads of a dump ran no Java code between their frames and cpuAfter, by the rules above. */
    private static final class Stillness {
        private final Map<Long, ThreadStack> byId = new HashMap<>();
        private final Map<Long, Long> cpuAfter;
        private final Set<Long> deadlocked;
        private final String meanwhile;

        Stillness(StackDump dump, Map<Long, Long> cpuAfter, Set<Long> deadlocked, String meanwhile) {
            dump.threads().forEach(t -> byId.put(t.thread().id(), t));
            this.cpuAfter = cpuAfter;
            this.deadlocked = deadlocked;
            this.meanwhile = meanwhile;
        }

        Map<Long, String> notKnown(List<ThreadStack> threads) {
            Map<Long, String> notKnown = new HashMap<>();
            for (ThreadStack t : threads) {
                if (!t.thread().agent() && !still(t, new HashSet<>())) {
                    notKnown.put(t.thread().id(), whyMayHaveRun(t.thread()));
                }
            }
            return notKnown;
        }

        /** Null when its CPU time says it did not run; else why its list is not known unless another rule says so. */
        private String whyMayHaveRun(ThreadEntry t) {
            Long after = cpuAfter == null ? Long.valueOf(-1) : cpuAfter.get(t.id());
            if (t.cpuNanos() < 0 || after != null && after < 0) {
                return "no CPU time tells whether the thread ran while " + meanwhile;
            }
            if (after == null) {
                return "the thread ended while " + meanwhile;
            }
            return after == t.cpuNanos() ? null : "the thread ran while " + meanwhile;
        }

        private boolean still(ThreadStack t, Set<Long> visiting) {
            if (whyMayHaveRun(t.thread()) == null || deadlocked.contains(t.thread().id())) {
                return true;
            }
            WaitingFor w = t.waitingFor();
            if (!t.thread().state().equals("BLOCKED") || w == null || !w.kind().equals("enter") || !w.hasOwner()
                    || !visiting.add(t.thread().id())) {
                return false;
            }
            ThreadStack owner = byId.get(w.ownerId());
            return owner != null && still(owner, visiting);
        }
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
