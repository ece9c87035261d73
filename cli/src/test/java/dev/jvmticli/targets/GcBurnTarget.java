package dev.jvmticli.targets;

import dev.jvmticli.testing.TargetMain;

/**
 * Constant garbage collection on a small heap (run it with -Xmx64m): "burner" threads allocate
 * short-lived arrays and keep the latest few thousand alive, so that every young collection copies
 * some of them and the old generation fills and is collected too.
 */
public final class GcBurnTarget {
    public static final int BURNERS = 2;
    /** Arrays kept alive per burner: about 8 MB each. */
    private static final int WINDOW = 4096;

    private GcBurnTarget() {
    }

    public static void main(String[] args) throws Exception {
        for (int b = 0; b < BURNERS; b++) {
            TargetMain.start("burner-" + b, () -> {
                byte[][] window = new byte[WINDOW][];
                for (long i = 0; ; i++) {
                    window[(int) (i % WINDOW)] = new byte[1024 + (int) (i % 7) * 256];
                }
            });
        }
        TargetMain.serve();
    }
}
