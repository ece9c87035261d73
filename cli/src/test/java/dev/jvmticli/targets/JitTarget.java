package dev.jvmticli.targets;

import dev.jvmticli.testing.TargetMain;

/**
 * A hot method, {@link #hot(int)}, that the JIT compiles with {@link #square(int)} inlined; a method
 * that is called once and loops for ever, {@link #osrLoop()}, so that its only compiled code is
 * on-stack replacement; on {@code late}, another one, {@link #late(int)}, starts running, to be
 * compiled while attached.
 */
public final class JitTarget {
    static volatile long sink;

    private JitTarget() {
    }

    /** Small enough to inline; its never-taken throw gives it code with debug info of its own, which is
     * where the JIT's inlining records (JVMTI_CMLR_INLINE_INFO, per pc) come from. */
    static int square(int x) {
        if (x < 0) {
            throw new IllegalStateException();
        }
        return x * x;
    }

    static long hot(int n) {
        long sum = 0;
        for (int i = 0; i < n; i++) {
            sum += square(i);
        }
        return sum;
    }

    static long late(int n) {
        long sum = 1;
        for (int i = 0; i < n; i++) {
            sum = sum * 31 + i;
        }
        return sum;
    }

    static void osrLoop() {
        long sum = 0;
        while (true) {
            for (int i = 0; i < 100_000; i++) {
                sum = sum * 31 + i;
            }
            sink = sum;
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private static void spin(java.util.function.IntToLongFunction work) {
        while (true) {
            sink = work.applyAsLong(10_000);
            try {
                Thread.sleep(2);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    public static void main(String[] args) throws Exception {
        TargetMain.start("hot", () -> spin(JitTarget::hot));
        TargetMain.start("osr", JitTarget::osrLoop);
        TargetMain.serve(line -> {
            if (line.equals("late")) {
                TargetMain.start("late", () -> spin(JitTarget::late));
                return "started";
            }
            return "unknown " + line;
        });
    }
}
