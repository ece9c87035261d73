package dev.jvmticli.targets;

import dev.jvmticli.testing.TargetMain;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.LockSupport;

/**
 * Virtual threads that mount and unmount without pause (JDK 21+): YIELDERS that do nothing but
 * {@code Thread.yield()} and park for a moment, and HOLDERS that yield while each holds a monitor of its own (on JDK 24+
 * a virtual thread holding a monitor unmounts too), so that a thread dump keeps meeting virtual
 * threads in the middle of mounting or unmounting. READY once every holder holds its monitor.
 */
public final class MountChurnTarget {
    public static final int YIELDERS = 12;
    public static final int HOLDERS = 4;

    private MountChurnTarget() {
    }

    /** The monitor a holder keeps, of a class of its own so that a dump's lock lines can be told apart. */
    public static final class HolderLock {
        final String holder;

        HolderLock(String holder) {
            this.holder = holder;
        }
    }

    public static void main(String[] args) throws Exception {
        CountDownLatch holding = new CountDownLatch(HOLDERS);
        for (int i = 0; i < HOLDERS; i++) {
            HolderLock lock = new HolderLock("holder-" + i);
            VirtualThreadsTarget.startVirtual(lock.holder, () -> {
                synchronized (lock) {
                    holding.countDown();
                    yieldForever();
                }
            });
        }
        holding.await();
        for (int i = 0; i < YIELDERS; i++) {
            VirtualThreadsTarget.startVirtual("yielder-" + i, MountChurnTarget::yieldForever);
        }
        TargetMain.serve();
    }

    /** Yields, and now and then parks a tenth of a millisecond: a yielded virtual thread goes back to
     * its carrier's own queue, which its carrier serves before the threads started from outside. */
    private static void yieldForever() {
        for (long i = 0; ; i++) {
            Thread.yield();
            if (i % 64 == 0) {
                LockSupport.parkNanos(100_000);
            }
        }
    }
}
