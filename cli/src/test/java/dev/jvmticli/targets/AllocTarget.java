package dev.jvmticli.targets;

import dev.jvmticli.testing.TargetMain;

/** One thread allocating mostly Marker[] arrays in {@link #churn()}, and a trickle of long[] elsewhere. */
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

    public static void main(String[] args) throws Exception {
        TargetMain.start("allocator", () -> {
            while (true) {
                churn();
                trickle();
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
