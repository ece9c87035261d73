package dev.jvmticli.targets;

import dev.jvmticli.testing.TargetMain;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A deadlock of two virtual threads hidden among many that wait for nothing a lock can name (JDK 21+):
 * PARKED parked without a blocker and SLEEPERS sleeping, the ones that "waitingOnly" leaves out.
 * vt-cycle-monitor holds MONITOR and parks acquiring LOCK; vt-cycle-lock holds LOCK and is blocked
 * entering MONITOR. Apart from the cycle, vt-sleeping-holder sleeps holding HELD, which
 * vt-blocked-on-sleeper is blocked entering: its owner is one of the threads waitingOnly leaves out.
 */
public final class CrowdedDeadlockTarget {
    public static final int PARKED = 10_000;
    public static final int SLEEPERS = 2_000;

    static final Object MONITOR = new Object();
    static final ReentrantLock LOCK = new ReentrantLock();
    static final Object HELD = new Object();

    private CrowdedDeadlockTarget() {
    }

    public static void main(String[] args) throws Exception {
        CountDownLatch started = new CountDownLatch(PARKED + SLEEPERS);
        for (int i = 0; i < PARKED + SLEEPERS; i++) {
            boolean sleeper = i < SLEEPERS;
            VirtualThreadsTarget.startVirtual("vt-crowd-" + i, () -> {
                started.countDown();
                if (sleeper) {
                    LocksTarget.sleepForever();
                }
                while (true) {
                    LockSupport.park();
                }
            });
        }
        started.await();
        CountDownLatch both = new CountDownLatch(2);
        Thread monitorFirst = VirtualThreadsTarget.startVirtual("vt-cycle-monitor", () -> {
            synchronized (MONITOR) {
                TargetMain.arrive(both);
                LOCK.lock();
            }
        });
        Thread lockFirst = VirtualThreadsTarget.startVirtual("vt-cycle-lock", () -> {
            LOCK.lock();
            TargetMain.arrive(both);
            synchronized (MONITOR) {
                LocksTarget.sink++;
            }
        });
        TargetMain.awaitState(monitorFirst, Thread.State.WAITING);
        TargetMain.awaitState(lockFirst, Thread.State.BLOCKED);
        TargetMain.awaitState(VirtualThreadsTarget.startVirtual("vt-sleeping-holder", () -> {
            synchronized (HELD) {
                LocksTarget.sleepForever();
            }
        }), Thread.State.TIMED_WAITING);
        TargetMain.awaitState(VirtualThreadsTarget.startVirtual("vt-blocked-on-sleeper", () -> {
            synchronized (HELD) {
                LocksTarget.sink++;
            }
        }), Thread.State.BLOCKED);
        TargetMain.serve();
    }
}
