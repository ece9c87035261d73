package dev.jvmticli.targets;

import dev.jvmticli.testing.TargetMain;
import java.util.concurrent.locks.LockSupport;

/**
 * Far more threads than a JNI local frame's 64 references: PARKED threads "parked-N" parked for
 * good, CONTENDERS threads "contender-N" that keep waiting to enter one monitor that "holder"
 * keeps most of the time, and two "worker-N" threads that allocate and compute at a gentle duty
 * cycle, so that every sampling command (`profile`, `alloc`, `contention`, `jit`) has something
 * to report while the thread count is a busy server's.
 */
public final class ManyThreadsTarget {
    public static final int PARKED = 300;
    public static final int CONTENDERS = 80;
    private static final Object MONITOR = new Object();
    static volatile Object sink;

    private ManyThreadsTarget() {
    }

    public static void main(String[] args) throws Exception {
        for (int i = 0; i < PARKED; i++) {
            TargetMain.start("parked-" + i, () -> {
                while (true) {
                    LockSupport.park();
                }
            });
        }
        TargetMain.start("holder", () -> {
            while (true) {
                synchronized (MONITOR) {
                    LockSupport.parkNanos(20_000_000);
                }
                LockSupport.parkNanos(1_000_000);
            }
        });
        for (int i = 0; i < CONTENDERS; i++) {
            TargetMain.start("contender-" + i, () -> {
                while (true) {
                    synchronized (MONITOR) {
                        sink = new Object();
                    }
                    LockSupport.parkNanos(5_000_000);
                }
            });
        }
        for (int i = 0; i < 2; i++) {
            TargetMain.start("worker-" + i, ManyThreadsTarget::work);
        }
        TargetMain.serve(line -> line.equals("count") ? Integer.toString(Thread.getAllStackTraces().size()) : "unknown command " + line);
    }

    private static void work() {
        while (true) {
            StringBuilder text = new StringBuilder();
            for (int i = 0; i < 2_000; i++) {
                text.append(i % 10);
            }
            sink = text.toString();
            LockSupport.parkNanos(1_000_000);
        }
    }
}
