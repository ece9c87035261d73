package dev.jvmticli.targets;

import dev.jvmticli.testing.TargetMain;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * Platform threads each doing one known thing over wall time: "running" computes in {@link #spin},
 * "sleeping" sleeps in {@link #sleepForever}, "lock-waiter" is BLOCKED entering a monitor in
 * {@link #enterHeld} that "lock-holder" holds while it sleeps, "parked" parks in {@link #parkForever}.
 * It also keeps OBJECTS small objects reachable, so that a class histogram of its heap takes a while
 * (tens of milliseconds): work of the tool's own that a profile must not count as the target's.
 */
public final class WallTarget {
    public static final int OBJECTS = 1_500_000;

    private static final Object HELD = new Object();
    private static final List<Object> KEPT = new ArrayList<>();
    private static volatile long sink;

    private WallTarget() {
    }

    public static void main(String[] args) throws Exception {
        for (int i = 0; i < OBJECTS; i++) {
            KEPT.add(new int[2]);
        }
        TargetMain.start("running", WallTarget::spin);
        TargetMain.start("sleeping", WallTarget::sleepForever);
        Thread holder = TargetMain.start("lock-holder", () -> {
            synchronized (HELD) {
                sleepForever();
            }
        });
        TargetMain.awaitState(holder, Thread.State.TIMED_WAITING);
        TargetMain.awaitState(TargetMain.start("lock-waiter", WallTarget::enterHeld), Thread.State.BLOCKED);
        TargetMain.start("parked", WallTarget::parkForever);
        TargetMain.serve();
    }

    static void spin() {
        long x = 0;
        while (true) {
            x = x * 31 + System.identityHashCode(KEPT);
            sink = x;
        }
    }

    static void sleepForever() {
        while (true) {
            try {
                Thread.sleep(60_000);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    static void enterHeld() {
        synchronized (HELD) {
            sink++;
        }
    }

    static void parkForever() {
        while (true) {
            LockSupport.park();
        }
    }
}
