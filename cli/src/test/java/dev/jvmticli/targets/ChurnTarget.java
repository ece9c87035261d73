package dev.jvmticli.targets;

import dev.jvmticli.testing.TargetMain;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Threads whose state changes every few microseconds: each "churn-N" thread cycles through a
 * contended synchronized block, a contended ReentrantLock, a Condition await with a timeout, a
 * LockSupport.parkNanos with a blocker, an Object.wait with a timeout, a sleep and a short burst of
 * CPU, some of them while it holds a monitor. Every park has a blocker, so that a parked thread
 * always has one to show. Asked "flip", a "flipper" thread holds FLIPPED while it spins in
 * spinHolding and does not while it spins in spinFree, each for ~100 µs, in turn, until asked
 * "stop".
 */
public final class ChurnTarget {
    private static final int THREADS = 24;
    private static final Object MONITOR = new Object();
    private static final Object OUTER = new Object();
    private static final ReentrantLock LOCK = new ReentrantLock();
    private static final Condition CONDITION = LOCK.newCondition();
    private static final ReentrantLock FLIPPED = new ReentrantLock();
    static volatile long sink;
    private static volatile boolean flipping;

    private ChurnTarget() {
    }

    public static void main(String[] args) throws Exception {
        for (int i = 0; i < THREADS; i++) {
            Object blocker = new Object();
            TargetMain.start("churn-" + i, () -> {
                try {
                    while (true) {
                        cycle(blocker);
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
        }
        TargetMain.serve(line -> switch (line) {
            case "flip" -> {
                flipping = true;
                TargetMain.start("flipper", () -> {
                    while (flipping) {
                        spinHolding();
                        spinFree();
                    }
                });
                yield "flipping";
            }
            case "stop" -> {
                flipping = false;
                yield "stopped";
            }
            default -> "unknown command " + line;
        });
    }

    private static void spinHolding() {
        FLIPPED.lock();
        try {
            spin(100_000);
        } finally {
            FLIPPED.unlock();
        }
    }

    private static void spinFree() {
        spin(100_000);
    }

    private static void cycle(Object blocker) throws InterruptedException {
        synchronized (OUTER) {
            synchronized (MONITOR) {
                spin(2_000);
            }
        }
        LOCK.lock();
        try {
            spin(2_000);
            CONDITION.awaitNanos(20_000);
        } finally {
            LOCK.unlock();
        }
        LockSupport.parkNanos(blocker, 20_000);
        synchronized (MONITOR) {
            MONITOR.wait(0, 50_000);
            MONITOR.notify();
        }
        synchronized (OUTER) {
            TimeUnit.MICROSECONDS.sleep(50);
        }
        spin(20_000);
    }

    private static void spin(long nanos) {
        long end = System.nanoTime() + nanos;
        while (System.nanoTime() < end) {
            sink++;
        }
    }
}
