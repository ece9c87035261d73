package dev.jvmticli.targets;

import dev.jvmticli.testing.TargetMain;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.concurrent.locks.LockSupport;

/**
 * A target whose CPU use is known. Three threads burn CPU each in its own method at different
 * duty cycles: "split-a" in burnA all the time, "split-b" in burnB half the time, "split-c" in
 * burnC a quarter of the time; {@code cpu} answers their CPU times (nanoseconds, "cpu a b c"), as the
 * JVM measures them, so a test can compare a profile's shares with the truth. A fourth thread,
 * "bias", spends most of its time in {@link #countedLoop}, one long counted int loop that C2
 * compiles without a safepoint poll (run with -XX:-UseCountedLoopSafepoints and countedLoop not
 * inlined), called from {@link #polling}, which polls: a profiler biased to safepoints would
 * blame polling.
 */
public final class ProfileTarget {
    private static final long SLICE_NANOS = 2_000_000;
    private static volatile long sink;

    private ProfileTarget() {
    }

    public static void main(String[] args) throws Exception {
        Thread a = TargetMain.start("split-a", () -> burn(ProfileTarget::burnA, 1));
        Thread b = TargetMain.start("split-b", () -> burn(ProfileTarget::burnB, 2));
        Thread c = TargetMain.start("split-c", () -> burn(ProfileTarget::burnC, 4));
        TargetMain.start("bias", ProfileTarget::polling);
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        TargetMain.serve(line -> line.equals("cpu")
                ? "cpu " + mx.getThreadCpuTime(a.getId()) + " " + mx.getThreadCpuTime(b.getId()) + " " + mx.getThreadCpuTime(c.getId())
                : "unknown command " + line);
    }

    /** Burns one slice in work, then rests (every-1) slices' worth of CPU time, forever. */
    private static void burn(Runnable work, int every) {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        while (true) {
            long start = mx.getCurrentThreadCpuTime();
            while (mx.getCurrentThreadCpuTime() - start < SLICE_NANOS) {
                work.run();
            }
            if (every > 1) {
                LockSupport.parkNanos((every - 1) * SLICE_NANOS);
            }
        }
    }

    private static void burnA() {
        sink += spin(20_000);
    }

    private static void burnB() {
        sink += spin(20_000);
    }

    private static void burnC() {
        sink += spin(20_000);
    }

    private static long spin(int n) {
        long x = 0;
        for (int i = 0; i < n; i++) {
            x += i * 31L ^ x;
        }
        return x;
    }

    private static void polling() {
        while (true) {
            sink += countedLoop(50_000_000);
            for (int i = 0; i < 1000; i++) {
                sink += Integer.toHexString(i).length();
            }
        }
    }

    /** No call, no allocation, an int counter: C2 leaves no safepoint poll in it. */
    private static long countedLoop(int n) {
        long x = 17;
        for (int i = 0; i < n; i++) {
            x = x * 6364136223846793005L + i;
        }
        return x;
    }
}
