package dev.jvmticli.analysis;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.jvmticli.client.LockRef;
import dev.jvmticli.client.LockedMonitor;
import dev.jvmticli.client.StackDump;
import dev.jvmticli.client.ThreadEntry;
import dev.jvmticli.client.ThreadStack;
import dev.jvmticli.client.WaitingFor;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The locks of a dump seen from the lock's side: who owns each, who contends for it (waits to enter
 * the monitor or to acquire the synchronizer from a holder), who waits for a release of what nobody
 * owns (a latch, semaphore permits), who waits to be notified (Object.wait) or signalled (a
 * Condition's await: an idle pool's workers), and who is parked on an object that is none of these
 * (a FutureTask). Ranked by how many threads wait on each, platform and virtual together, the
 * most contended first among as many; a lock whose waiters all wait idly (a pool's workers waiting
 * for work, the Finalizer: {@link IdleWaits}) below every other.
 */
public final class LockTable {
    /**
     * One lock and the threads around it.
     *
     * @param owner        null when nobody owns it, when that is not known, or when it changed hands
     * @param ownerUnknown true when it may have an owner that the dump does not name: no source could
     *                     tell a thread waiting to enter it who owns it, or named one not in the dump
     * @param ownersSeen   when it changed hands while the threads were read (each thread's facts are
     *                     of its own moment): every thread seen owning it, with how many threads'
     *                     facts said so, most first; empty otherwise
     * @param idle         true when it has waiters and every one of them waits idly ({@link IdleWaits})
     */
    public record Lock(LockRef lock, ThreadEntry owner, boolean ownerUnknown, List<Sighting> ownersSeen, List<ThreadEntry> entering,
                       List<ThreadEntry> releaseWaiters, List<ThreadEntry> notifyWaiters, List<ThreadEntry> parked,
                       @JsonInclude(JsonInclude.Include.NON_DEFAULT) boolean idle) {
        public int contention() {
            return entering.size();
        }

        public int waiting() {
            return entering.size() + releaseWaiters.size() + notifyWaiters.size() + parked.size();
        }
    }

    /** A thread seen owning a lock, and by how many threads' facts (its own, when it lists the lock). */
    public record Sighting(ThreadEntry thread, int times) {
    }

    private LockTable() {
    }

    public static List<Lock> of(StackDump dump) {
        Map<Long, ThreadEntry> byId = new LinkedHashMap<>();
        dump.threads().forEach(t -> byId.put(t.thread().id(), t.thread()));
        Map<LockRef, Map<ThreadEntry, Integer>> owners = new LinkedHashMap<>();
        Map<LockRef, List<ThreadEntry>> entering = new LinkedHashMap<>();
        Map<LockRef, List<ThreadEntry>> released = new LinkedHashMap<>();
        Map<LockRef, List<ThreadEntry>> notified = new LinkedHashMap<>();
        Map<LockRef, List<ThreadEntry>> parked = new LinkedHashMap<>();
        Set<LockRef> ownerUnknown = new HashSet<>();
        Set<LockRef> busyWaits = new HashSet<>(); // waited on by at least one thread that does not wait idly
        Map<Long, List<LockRef>> owning = synchronizersByOwner(dump.threads()); // a thread others wait for is not idle
        for (ThreadStack t : dump.threads()) {
            if (!t.waitUnnamed()) { // one of what it entered it let go of, not known which
                for (LockedMonitor monitor : t.locked()) {
                    owners.computeIfAbsent(monitor.lock(), k -> new LinkedHashMap<>()).putIfAbsent(t.thread(), 1); // recursion is one sighting
                }
            }
            WaitingFor wait = t.waitingFor();
            if (wait == null) {
                continue;
            }
            if (wait.hasOwner() && byId.containsKey(wait.ownerId())) {
                owners.computeIfAbsent(wait.lock(), k -> new LinkedHashMap<>()).merge(byId.get(wait.ownerId()), 1, Integer::sum);
            } else if (wait.hasOwner() || wait.ownerUnknown()) {
                ownerUnknown.add(wait.lock());
            }
            if (!IdleWaits.isIdle(t) || owning.containsKey(t.thread().id())) {
                busyWaits.add(wait.lock());
            }
            Map<LockRef, List<ThreadEntry>> list = wait.contends() ? entering : wait.awaitsRelease() ? released
                    : wait.awaitsSignal() ? notified : parked;
            list.computeIfAbsent(wait.lock(), k -> new ArrayList<>()).add(t.thread());
        }
        List<LockRef> all = new ArrayList<>(owners.keySet());
        for (Map<LockRef, List<ThreadEntry>> waiters : List.of(entering, released, notified, parked)) {
            waiters.keySet().stream().filter(l -> !all.contains(l)).forEach(all::add);
        }
        return all.stream()
                .map(l -> lock(l, owners.getOrDefault(l, Map.of()), ownerUnknown.contains(l), entering.getOrDefault(l, List.of()),
                        released.getOrDefault(l, List.of()), notified.getOrDefault(l, List.of()), parked.getOrDefault(l, List.of()),
                        !busyWaits.contains(l)))
                .sorted(Comparator.comparing(Lock::idle)
                        .thenComparing(Comparator.comparingInt(Lock::waiting).reversed())
                        .thenComparing(Comparator.comparingInt(Lock::contention).reversed()))
                .toList();
    }

    /** One owner when the threads agree on one that is not itself waiting to enter; otherwise the sightings. */
    private static Lock lock(LockRef lock, Map<ThreadEntry, Integer> seen, boolean toldNoOwner, List<ThreadEntry> entering,
                             List<ThreadEntry> released, List<ThreadEntry> notified, List<ThreadEntry> parked, boolean noBusyWaiter) {
        boolean idle = noBusyWaiter && entering.size() + released.size() + notified.size() + parked.size() > 0;
        ThreadEntry only = seen.size() == 1 ? seen.keySet().iterator().next() : null;
        if (seen.isEmpty() || only != null && !entering.contains(only)) {
            return new Lock(lock, only, seen.isEmpty() && toldNoOwner, List.of(), entering, released, notified, parked, idle);
        }
        List<Sighting> sightings = seen.entrySet().stream().map(e -> new Sighting(e.getKey(), e.getValue()))
                .sorted(Comparator.comparingInt(Sighting::times).reversed()).toList();
        return new Lock(lock, null, false, sightings, entering, released, notified, parked, idle);
    }

    /**
     * Ownable synchronizers by owner thread id, as far as they can be known without a heap walk:
     * those one of these threads is parked on.
     */
    public static Map<Long, List<LockRef>> synchronizersByOwner(List<ThreadStack> threads) {
        Map<Long, List<LockRef>> owned = new LinkedHashMap<>();
        for (ThreadStack t : threads) {
            if (t.waitingFor() != null && t.waitingFor().parked() && t.waitingFor().hasOwner()) {
                List<LockRef> locks = owned.computeIfAbsent(t.waitingFor().ownerId(), k -> new ArrayList<>());
                if (!locks.contains(t.waitingFor().lock())) {
                    locks.add(t.waitingFor().lock());
                }
            }
        }
        return owned;
    }
}
