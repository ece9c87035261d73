package dev.jvmticli.analysis;

import dev.jvmticli.client.Frame;
import dev.jvmticli.client.LockRef;
import dev.jvmticli.client.StackDump;
import dev.jvmticli.client.ThreadStack;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

/**
 * What most threads of a dump wait for, platform and virtual together, idle waits aside
 * ({@link IdleWaits}): the lock with the most waiters, where they wait, and who holds it up. A
 * monitor or a synchronizer with an owner has that owner; a lock nobody owns (a pool's queue or
 * condition, a latch) has none to name, so the threads named are those that went through the same
 * caller as the waiters (the nearest application frame below the wait that other threads are
 * inside too) and wait for no lock: where a pool's borrowers wait, they are the ones that
 * borrowed (a thread there that waits for another lock, such as a worker of another pool polling
 * its own queue, holds nothing up). That is what their frames show, not a fact of ownership, and
 * is said so.
 *
 * @param lock        the lock most threads wait on
 * @param waiters     the threads that wait on it
 * @param waitFrame   the frame they wait in, under the JDK's parking and locking machinery (the
 *                    queue's or the synchronizer's method); null when they have no frames
 * @param callerFrame the first application frame under the wait (not the JDK's); null when none
 * @param owner       the lock's owner, when it has one
 * @param sharedFrame when it has no owner, the nearest application frame under callerFrame that
 *                    other threads are inside too; null when none is
 * @param inside      those other threads (waiting for no lock), when sharedFrame is not null
 * @param deeper      the next application frames under sharedFrame that other threads are inside
 *                    too, nearest first, each with more threads inside than the one before (at
 *                    most DEEPER): where the threads at sharedFrame were passing through (a
 *                    borrower between the pool's queue and its own code), the holders may be
 *                    further down
 */
public record MainWait(LockTable.Lock lock, List<ThreadStack> waiters, Frame waitFrame, Frame callerFrame, ThreadStack owner,
                       Frame sharedFrame, List<ThreadStack> inside, List<Shared> deeper) {
    /** Frames looked at under sharedFrame. */
    private static final int DEEPER = 2;

    /** An application frame under the waiters' caller, and the threads inside it that wait for no lock. */
    public record Shared(Frame frame, List<ThreadStack> inside) {
    }

    /**
     * The main wait of the dump: the lock most threads wait on, idle waits aside, that two threads or
     * more wait on or that a thread waits to enter or acquire from an owner (one owned by nobody
     * with a single thread waiting on it holds up nobody else: a thread waiting for its own event,
     * a back-off, its shutdown). Empty when there is none.
     */
    public static Optional<MainWait> of(StackDump dump) {
        Optional<LockTable.Lock> found = LockTable.of(dump).stream()
                .filter(l -> !l.idle() && l.waiting() > 0 && (l.waiting() > 1 || hasOwner(l))).findFirst();
        return found.map(lock -> of(dump, lock));
    }

    /**
     * The wait of the dump on one lock (a blocker that contention saw threads park on, say), as {@link #of(StackDump)}
     * tells the main one; empty when no thread of the dump waits on it, or it is an idle wait.
     */
    public static Optional<MainWait> on(StackDump dump, LockRef ref) {
        return LockTable.of(dump).stream().filter(l -> l.lock().equals(ref) && !l.idle() && l.waiting() > 0).findFirst()
                .map(lock -> of(dump, lock));
    }

    private static MainWait of(StackDump dump, LockTable.Lock lock) {
        List<ThreadStack> waiters = dump.threads().stream()
                .filter(t -> t.waitingFor() != null && t.waitingFor().lock().equals(lock.lock())).toList();
        List<Frame> frames = waiters.isEmpty() ? List.of() : StackGroups.of(waiters).get(0).frames();
        int wait = firstIndex(frames, 0, f -> !isMachinery(f));
        int caller = firstIndex(frames, Math.max(wait, 0), f -> !isJdk(f));
        ThreadStack owner = lock.owner() == null ? null
                : dump.threads().stream().filter(t -> t.thread().id() == lock.owner().id()).findFirst().orElse(null);
        List<Shared> shared = new ArrayList<>();
        if (lock.owner() == null && caller >= 0) {
            Set<Long> waiting = new HashSet<>();
            waiters.forEach(t -> waiting.add(t.thread().id()));
            for (int i = caller + 1; i < frames.size() && shared.size() <= DEEPER; i++) {
                Frame f = frames.get(i);
                if (isJdk(f)) {
                    continue;
                }
                List<ThreadStack> others = dump.threads().stream()
                        .filter(t -> !t.thread().agent() && !waiting.contains(t.thread().id()) && t.waitingFor() == null && hasMethod(t, f))
                        .toList();
                // a frame with no more threads inside than the one above it tells nothing new
                if (!others.isEmpty() && (shared.isEmpty() || others.size() > shared.get(shared.size() - 1).inside().size())) {
                    shared.add(new Shared(f, others));
                }
            }
        }
        Shared nearest = shared.isEmpty() ? null : shared.get(0);
        return new MainWait(lock, waiters, wait < 0 ? null : frames.get(wait), caller < 0 ? null : frames.get(caller), owner,
                nearest == null ? null : nearest.frame(), nearest == null ? List.of() : nearest.inside(),
                shared.isEmpty() ? List.of() : List.copyOf(shared.subList(1, shared.size())));
    }

    /**
     * Of threads read at one instant (their states and frames, no lock facts), those inside
     * sharedFrame and waiting for no lock by their frames: not blocked, neither parked nor in
     * Object.wait (a sleep does not count as a wait); where none is, those inside the nearest of
     * the deeper frames that some are inside. Virtual threads are read one at a time, so the threads
     * {@link #inside} names may have held one after another, or only passed through sharedFrame;
     * read again together, they are those holding at the same instant. null when there is no
     * sharedFrame; sharedFrame with no threads when none is inside any of them.
     */
    public Shared insideOf(List<ThreadStack> together) {
        if (sharedFrame == null) {
            return null;
        }
        List<Frame> frames = new ArrayList<>(List.of(sharedFrame));
        deeper.forEach(d -> frames.add(d.frame()));
        for (Frame f : frames) {
            List<ThreadStack> inside = together.stream().filter(t -> hasMethod(t, f) && !waitsByFrames(t)).toList();
            if (!inside.isEmpty()) {
                return new Shared(f, inside);
            }
        }
        return new Shared(sharedFrame, List.of());
    }

    private static boolean waitsByFrames(ThreadStack t) {
        return t.thread().state().equals("BLOCKED") || t.frames().stream().anyMatch(f ->
                f.className().equals("java.util.concurrent.locks.LockSupport") && f.method().startsWith("park")
                        || f.className().equals("java.lang.Object") && f.method().startsWith("wait"));
    }

    /**
     * Where thread t is: its first frame above the JDK's parking, locking and sleeping machinery
     * (the top frame when it has none of those), and, when that is the JDK's, the first frame that
     * is not; each null when there is none.
     */
    public static List<Frame> whereIs(ThreadStack t) {
        int top = firstIndex(t.frames(), 0, f -> !isMachinery(f));
        if (top < 0) {
            return t.frames().isEmpty() ? List.of() : List.of(t.frames().get(0));
        }
        int app = firstIndex(t.frames(), top, f -> !isJdk(f));
        return app < 0 || app == top ? List.of(t.frames().get(top)) : List.of(t.frames().get(top), t.frames().get(app));
    }

    /** Whether the lock has, or may have, an owner: one named, several seen, or one no source could name. */
    private static boolean hasOwner(LockTable.Lock lock) {
        return lock.owner() != null || !lock.ownersSeen().isEmpty() || lock.ownerUnknown();
    }

    private static boolean hasMethod(ThreadStack t, Frame f) {
        return t.frames().stream().anyMatch(g -> g.className().equals(f.className()) && g.method().equals(f.method()));
    }

    private static int firstIndex(List<Frame> frames, int from, Predicate<Frame> test) {
        for (int i = from; i < frames.size(); i++) {
            if (test.test(frames.get(i))) {
                return i;
            }
        }
        return -1;
    }

    /** A frame of how the JDK parks, blocks or yields a thread, over the method that waits. */
    private static boolean isMachinery(Frame f) {
        String c = f.className();
        return c.equals("jdk.internal.misc.Unsafe") || c.startsWith("java.util.concurrent.locks.") || c.startsWith("java.lang.VirtualThread")
                || c.startsWith("jdk.internal.vm.") || c.startsWith("java.lang.System$") || c.equals("java.lang.Object")
                || c.equals("java.lang.Thread") && (f.method().equals("sleep") || f.method().equals("sleepNanos") || f.method().equals("sleep0"));
    }

    private static boolean isJdk(Frame f) {
        String c = f.className();
        return c.startsWith("java.") || c.startsWith("javax.") || c.startsWith("jdk.") || c.startsWith("sun.") || c.startsWith("com.sun.");
    }
}
