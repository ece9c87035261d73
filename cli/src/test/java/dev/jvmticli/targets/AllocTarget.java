package dev.jvmticli.targets;

import dev.jvmticli.testing.TargetMain;

/**
 * One thread allocating mostly Marker[] arrays in {@link #churn()}, a trickle of long[] elsewhere, and
 * strings made by the JDK's String.repeat called from {@link #repeatText()}.
 */
public final class AllocTarget {
    static volatile Object sink;

    private AllocTarget() {
    }

    /** The class the samples should be dominated by. */
    public static final class Marker {
        long value;
    }

    static void churn() {
        for (int i = 0; i < 100; i++) {
            sink = new Marker[256]; // about 1 KiB each: about 100 KiB per call
        }
    }

    static void trickle() {
        sink = new long[8];
    }

    static void repeatText() {
        sink = "ab".repeat(4096); // 8 KiB allocated inside the JDK, on behalf of this method
    }

    public static void main(String[] args) throws Exception {
        TargetMain.start("allocator", () -> {
            while (true) {
                churn();
                trickle();
                repeatText();
                try {
                    Thread.sleep(1); // a bounded rate: the machine is shared
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
        TargetMain.serve();
    }
}
