package dev.jvmticli.targets;

import dev.jvmticli.testing.TargetMain;
import java.util.concurrent.Semaphore;

/**
 * Safepoints of two kinds. Always: an allocator keeping a window of arrays alive, so that young
 * collections come every few hundred milliseconds on a small heap (-Xmx64m). With the argument
 * "late" (run it with C2 and -XX:-UseCountedLoopSafepoints): a thread runs a counted int loop of about
 * half a second, compiled without a safepoint poll, once a second; 100 ms into each run another
 * thread calls System.gc(), whose safepoint cannot begin before the loop ends. The JVM's own
 * -Xlog:safepoint says how long each took to reach.
 */
public final class PausesTarget {
    private static final long LATE_LOOP_NANOS = 500_000_000L;
    static volatile long sink;

    private PausesTarget() {
    }

    /** The loop whose compiled code has no safepoint poll under -XX:-UseCountedLoopSafepoints. */
    static int spin(int n) {
        int s = 0;
        for (int i = 0; i < n; i++) {
            s += i * 31 ^ (s >>> 3);
        }
        return s;
    }

    public static void main(String[] args) throws Exception {
        TargetMain.start("allocator", () -> {
            byte[][] window = new byte[1024][];
            for (long i = 0; ; i++) {
                window[(int) (i % window.length)] = new byte[16 * 1024];
                if (i % 4 == 0) {
                    pause(1);
                }
            }
        });
        if (args.length > 0 && args[0].equals("late")) {
            for (int i = 0; i < 20_000; i++) {
                sink += spin(10_000); // compiled by C2 before the timed runs
            }
            // the fastest of five runs: a run the machine's load slowed would make the loop short
            long fastest = Long.MAX_VALUE;
            for (int run = 0; run < 5; run++) {
                long began = System.nanoTime();
                sink += spin(20_000_000);
                fastest = Math.min(fastest, System.nanoTime() - began);
            }
            double nanosPerIteration = Math.max(0.05, fastest / 2e7);
            int iterations = (int) Math.min(Integer.MAX_VALUE, LATE_LOOP_NANOS / nanosPerIteration);
            Semaphore looping = new Semaphore(0);
            TargetMain.start("late-loop", () -> {
                for (;;) {
                    looping.release();
                    sink += spin(iterations);
                    pause(1000);
                }
            });
            TargetMain.start("safepoint-asker", () -> {
                for (;;) {
                    looping.acquireUninterruptibly();
                    pause(100);
                    System.gc();
                }
            });
        }
        TargetMain.serve();
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
