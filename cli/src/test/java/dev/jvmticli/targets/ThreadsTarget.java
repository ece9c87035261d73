package dev.jvmticli.targets;

import dev.jvmticli.testing.TargetMain;
import java.util.concurrent.locks.LockSupport;

/** Threads in every state the `threads` tests look for, and one with a hostile name. */
public final class ThreadsTarget {
    public static final String WEIRD_NAME = "weird \"name\"\\ \uD83D\uDE80 é\ttab\nnewline";
    /** Two names the kernel cuts to the same 15 bytes: their native ids cannot be told apart by name. */
    public static final String[] TWINS = {"twin-worker-thread-1", "twin-worker-thread-2"};
    private static final Object MONITOR = new Object();
    private static final Object WAIT_ON = new Object();
    static volatile long sink;

    private ThreadsTarget() {
    }

    public static void main(String[] args) throws Exception {
        TargetMain.start("spinner", () -> {
            long x = 0;
            while (true) {
                x += System.nanoTime() & 3;
                sink = x;
            }
        });
        Thread sleeper = TargetMain.start("sleeper", ThreadsTarget::sleepForever);
        Thread waiter = TargetMain.start("waiter", () -> {
            synchronized (WAIT_ON) {
                try {
                    WAIT_ON.wait();
                } catch (InterruptedException ignored) {
                    // ends the thread
                }
            }
        });
        Thread parker = TargetMain.start("parker", () -> {
            while (true) {
                LockSupport.park();
            }
        });
        Thread holder = TargetMain.start("holder", () -> {
            synchronized (MONITOR) {
                sleepForever();
            }
        });
        TargetMain.awaitState(holder, Thread.State.TIMED_WAITING);
        Thread blocked = TargetMain.start("blocked", () -> {
            synchronized (MONITOR) {
                sink++;
            }
        });
        Thread weird = TargetMain.start(WEIRD_NAME, ThreadsTarget::sleepForever);
        for (String twin : TWINS) {
            TargetMain.start(twin, ThreadsTarget::sleepForever);
        }
        TargetMain.awaitState(sleeper, Thread.State.TIMED_WAITING);
        TargetMain.awaitState(waiter, Thread.State.WAITING);
        TargetMain.awaitState(parker, Thread.State.WAITING);
        TargetMain.awaitState(blocked, Thread.State.BLOCKED);
        TargetMain.awaitState(weird, Thread.State.TIMED_WAITING);
        TargetMain.serve();
    }

    private static void sleepForever() {
        while (true) {
            try {
                Thread.sleep(60_000);
            } catch (InterruptedException ignored) {
                // keep sleeping
            }
        }
    }
}
