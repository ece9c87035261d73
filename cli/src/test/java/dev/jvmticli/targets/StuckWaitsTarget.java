package dev.jvmticli.targets;

import dev.jvmticli.testing.TargetMain;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Waits that do not end. From the start: "before-owner" holds a {@link Before} monitor for good and
 * "before-blocked-1" and "before-blocked-2" are blocked entering it. "during-owner" holds a
 * {@link During} monitor and "lock-owner" a ReentrantLock, both for good, and "before-lock-waiter"
 * parks in the lock's {@code lock()}; on JDK 21+ the virtual threads "v-before-blocked" (on the
 * Before monitor) and "v-before-lock-waiter" (on the lock) do the same from the start. On {@code block} (asked
 * within a window) "during-blocked-1..3" block entering the During monitor and "lock-waiter-1..2"
 * park in the lock's {@code lock()}, and on JDK 21+ the virtual threads "v-blocked" (on the During
 * monitor) and "v-lock-waiter" (on the lock) do the same. {@code started} answers when each of those
 * began to wait ({@code name=System.nanoTime()} just before it, comma-separated), {@code hashes}
 * the identity hashes of the two monitors and of the lock's sync (after {@code block}).
 */
public final class StuckWaitsTarget {
    /** The monitor blocked on since the start. */
    public static final class Before {
    }

    /** The monitor blocked on from {@code block}. */
    public static final class During {
    }

    public static final int DURING_BLOCKED = 3;
    public static final int LOCK_WAITERS = 2;

    static final Before BEFORE = new Before();
    static final During DURING = new During();
    static final ReentrantLock LOCK = new ReentrantLock();
    static final Map<String, Long> STARTED = new ConcurrentHashMap<>();
    static volatile Thread lockWaiter;

    private StuckWaitsTarget() {
    }

    private static void forever() {
        while (true) {
            try {
                Thread.sleep(60_000);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private static void holdForever(Object monitor) {
        synchronized (monitor) {
            forever();
        }
    }

    private static void blockOn(Object monitor) {
        STARTED.put(Thread.currentThread().getName(), System.nanoTime());
        synchronized (monitor) {
            forever();
        }
    }

    private static void waitForLock() {
        STARTED.put(Thread.currentThread().getName(), System.nanoTime());
        LOCK.lock();
        forever();
    }

    /** Starts the threads that block and park within the window, and waits until each waits. */
    static String block() throws Exception {
        List<Thread> started = new ArrayList<>();
        for (int i = 1; i <= DURING_BLOCKED; i++) {
            started.add(TargetMain.start("during-blocked-" + i, () -> blockOn(DURING)));
        }
        for (int i = 1; i <= LOCK_WAITERS; i++) {
            started.add(TargetMain.start("lock-waiter-" + i, StuckWaitsTarget::waitForLock));
            lockWaiter = started.get(started.size() - 1);
        }
        if (Runtime.version().feature() >= 21) {
            /* the parking one first: before JDK 24 a virtual thread blocked on a monitor keeps its
             * carrier, and with v-before-blocked that may be every carrier of a 2-core machine */
            started.add(virtualThread("v-lock-waiter", StuckWaitsTarget::waitForLock));
            started.add(virtualThread("v-blocked", () -> blockOn(DURING)));
        }
        for (Thread t : started) {
            TargetMain.awaitState(t, t.getName().contains("blocked") ? Thread.State.BLOCKED : Thread.State.WAITING);
        }
        return "blocked " + started.size();
    }

    /** Thread.ofVirtual().name(name).start(body), through reflection: the targets compile for Java 17. */
    private static Thread virtualThread(String name, Runnable body) throws Exception {
        Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
        Class<?> type = Class.forName("java.lang.Thread$Builder");
        builder = type.getMethod("name", String.class).invoke(builder, name);
        return (Thread) type.getMethod("start", Runnable.class).invoke(builder, body);
    }

    /** The lock's sync, as its waiters' blocker: ReentrantLock keeps it private. */
    private static String hashes() {
        Object sync = lockWaiter == null ? null : LockSupport.getBlocker(lockWaiter);
        return Integer.toHexString(System.identityHashCode(BEFORE)) + " " + Integer.toHexString(System.identityHashCode(DURING)) + " "
                + (sync == null ? "none" : Integer.toHexString(System.identityHashCode(sync)));
    }

    public static void main(String[] args) throws Exception {
        Thread beforeOwner = TargetMain.start("before-owner", () -> holdForever(BEFORE));
        TargetMain.start("during-owner", () -> holdForever(DURING));
        TargetMain.start("lock-owner", () -> {
            LOCK.lock();
            forever();
        });
        TargetMain.awaitState(beforeOwner, Thread.State.TIMED_WAITING);
        for (int i = 1; i <= 2; i++) {
            TargetMain.awaitState(TargetMain.start("before-blocked-" + i, () -> holdForever(BEFORE)), Thread.State.BLOCKED);
        }
        while (!LOCK.isLocked()) {
            Thread.sleep(5);
        }
        TargetMain.awaitState(TargetMain.start("before-lock-waiter", StuckWaitsTarget::waitForLock), Thread.State.WAITING);
        if (Runtime.version().feature() >= 21) {
            TargetMain.awaitState(virtualThread("v-before-lock-waiter", StuckWaitsTarget::waitForLock), Thread.State.WAITING);
            TargetMain.awaitState(virtualThread("v-before-blocked", () -> holdForever(BEFORE)), Thread.State.BLOCKED);
        }
        TargetMain.serve(line -> {
            try {
                return switch (line) {
                    case "block" -> block();
                    case "hashes" -> hashes();
                    case "started" -> STARTED.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue())
                            .collect(java.util.stream.Collectors.joining(","));
                    default -> "unknown " + line;
                };
            } catch (Exception e) {
                return "failed " + e;
            }
        });
    }
}
