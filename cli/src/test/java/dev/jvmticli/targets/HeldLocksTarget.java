package dev.jvmticli.targets;

import dev.jvmticli.testing.TargetMain;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * A JVM under load whose threads own ownable synchronizers, as a server's do: HOLDERS threads each
 * own a ReentrantLock and a ReentrantReadWriteLock's write lock and wake every millisecond from a
 * timed park (as a server's back-off and poll loops do: they run between any two looks);
 * WAITERS threads parked for good acquiring a holder's lock; READERS threads holding a shared read
 * lock (owned by nobody) in timed parks; CHURNERS threads taking and letting go of one contended
 * lock; BUSY threads computing in a compiled loop (a Box passed to a method not inlined: run the
 * target with {@code -XX:CompileCommand=dontinline,dev.jvmticli.targets.HeldLocksTarget::touch}).
 * The holders and readers park in a compiled frame that keeps a Box escape analysis took apart,
 * which a JVMTI heap walk deoptimizes first (a DeoptimizeFrame operation each).
 */
public final class HeldLocksTarget {
    public static final int HOLDERS = 24;
    public static final int WAITERS = 8;
    public static final int READERS = 8;
    public static final int CHURNERS = 6;
    public static final int BUSY = 2;

    static final ReentrantReadWriteLock SHARED = new ReentrantReadWriteLock();
    static final ReentrantLock CONTENDED = new ReentrantLock();
    static volatile long sink;

    private HeldLocksTarget() {
    }

    static final class Box {
        long value;

        Box(long value) {
            this.value = value;
        }
    }

    public static void main(String[] args) throws Exception {
        ReentrantLock[] held = new ReentrantLock[HOLDERS];
        for (int i = 0; i < HOLDERS; i++) {
            ReentrantLock lock = new ReentrantLock();
            ReentrantReadWriteLock rw = new ReentrantReadWriteLock();
            held[i] = lock;
            Thread holder = TargetMain.start("holder-" + i, () -> {
                lock.lock();
                rw.writeLock().lock();
                wakeEveryMillisecond();
            });
            TargetMain.awaitState(holder, Thread.State.TIMED_WAITING);
        }
        for (int i = 0; i < WAITERS; i++) {
            ReentrantLock lock = held[i];
            Thread waiter = TargetMain.start("waiter-" + i, lock::lock);
            TargetMain.awaitState(waiter, Thread.State.WAITING);
        }
        for (int i = 0; i < READERS; i++) {
            TargetMain.start("reader-" + i, () -> {
                SHARED.readLock().lock();
                wakeEveryMillisecond();
            });
        }
        for (int i = 0; i < CHURNERS; i++) {
            TargetMain.start("churner-" + i, HeldLocksTarget::churn);
        }
        for (int i = 0; i < BUSY; i++) {
            TargetMain.start("busy-" + i, HeldLocksTarget::spin);
        }
        TargetMain.serve();
    }

    private static void wakeEveryMillisecond() {
        long n = 0;
        while (true) {
            n = parkAMillisecond(n);
        }
    }

    /** Compiled soon (32 threads call it a thousand times a second each), with a Box escape analysis takes apart live across the park. */
    private static long parkAMillisecond(long n) {
        Box box = new Box(n);
        LockSupport.parkNanos(1_000_000);
        sink = box.value;
        return box.value + 1;
    }

    private static void churn() {
        long n = 0;
        while (true) {
            CONTENDED.lock();
            try {
                for (int i = 0; i < 1000; i++) {
                    n += i ^ n;
                }
            } finally {
                CONTENDED.unlock();
            }
            sink = n;
        }
    }

    private static void spin() {
        long sum = 0;
        while (true) {
            Box box = new Box(sum);
            sum += touch(box);
            sink = sum;
        }
    }

    static long touch(Box box) {
        return box.value % 7 + 1;
    }
}
