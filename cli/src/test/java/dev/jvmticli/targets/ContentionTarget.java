package dev.jvmticli.targets;

import dev.jvmticli.testing.TargetMain;

/**
 * A monitor of a class of its own that "holder" keeps most of the time while "contender-1" and
 * "contender-2" keep trying to enter it in {@link #contend()}. Answers {@code hash} with the
 * monitor's identity hash.
 */
public final class ContentionTarget {
    /** The contended monitor's class. */
    public static final class Lock {
    }

    static final Lock LOCK = new Lock();
    static volatile long sink;

    private ContentionTarget() {
    }

    static void hold() {
        synchronized (LOCK) {
            pause(50);
        }
    }

    static void contend() {
        synchronized (LOCK) {
            sink++;
        }
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Starts "holder" and the two contenders. */
    static void startContending() {
        TargetMain.start("holder", () -> {
            while (!Thread.currentThread().isInterrupted()) {
                hold();
                pause(2);
            }
        });
        for (int i = 1; i <= 2; i++) {
            TargetMain.start("contender-" + i, () -> {
                while (!Thread.currentThread().isInterrupted()) {
                    contend();
                    pause(1);
                }
            });
        }
    }

    public static void main(String[] args) throws Exception {
        startContending();
        TargetMain.serve(line -> line.equals("hash") ? Integer.toHexString(System.identityHashCode(LOCK)) : "unknown " + line);
    }
}
