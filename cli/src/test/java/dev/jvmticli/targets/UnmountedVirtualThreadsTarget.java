package dev.jvmticli.targets;

import dev.jvmticli.testing.TargetMain;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.locks.LockSupport;

/**
 * Virtual threads of which none is mounted (JDK 21+): IN_ROOT sleeping, started with
 * Thread.ofVirtual() (the root thread container), and IN_EXECUTOR parked in an executor's container.
 */
public final class UnmountedVirtualThreadsTarget {
    public static final int IN_ROOT = 40;
    public static final int IN_EXECUTOR = 3;

    private UnmountedVirtualThreadsTarget() {
    }

    public static void main(String[] args) throws Exception {
        Thread last = null;
        for (int i = 0; i < IN_ROOT; i++) {
            last = VirtualThreadsTarget.startVirtual("vt-root-" + i, LocksTarget::sleepForever);
        }
        TargetMain.awaitState(last, Thread.State.TIMED_WAITING);
        ExecutorService executor = VirtualThreadsTarget.executor("vt-exec-");
        CountDownLatch parking = new CountDownLatch(IN_EXECUTOR);
        for (int i = 0; i < IN_EXECUTOR; i++) {
            executor.submit(() -> {
                parking.countDown();
                while (true) {
                    LockSupport.park();
                }
            });
        }
        parking.await();
        TargetMain.serve();
    }
}
