package dev.jvmticli.targets;

import dev.jvmticli.testing.TargetMain;
import java.util.concurrent.locks.ReentrantLock;

/** Heavy but live contention: many threads take the same locks, always in the same order. */
public final class LiveContentionTarget {
    private static final Object FIRST = new Object();
    private static final ReentrantLock SECOND = new ReentrantLock();
    private static final Object THIRD = new Object();
    static volatile long sink;

    private LiveContentionTarget() {
    }

    public static void main(String[] args) throws Exception {
        for (int i = 0; i < 8; i++) {
            TargetMain.start("busy-" + i, () -> {
                while (true) {
                    synchronized (FIRST) {
                        SECOND.lock();
                        try {
                            synchronized (THIRD) {
                                sink++;
                                Thread.onSpinWait();
                            }
                        } finally {
                            SECOND.unlock();
                        }
                    }
                }
            });
        }
        TargetMain.serve();
    }
}
