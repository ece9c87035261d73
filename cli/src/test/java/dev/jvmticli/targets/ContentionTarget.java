package dev.jvmticli.targets;

import dev.jvmticli.testing.TargetMain;

/**
 * A monitor of a class of its own that "holder" keeps most of the time while "contender-1",
 * "contender-2" and POOL threads "pool-N" keep trying to enter it in {@link #contend()}; a second
 * monitor, {@link Side}, that "side-holder" keeps while "side-contender" tries to enter it in
 * {@link #contendSide()}; and a JDK monitor, a StringBuffer's, that "buffer-holder" keeps while
 * "buffer-contender" blocks inside the JDK's {@code StringBuffer.append} called from {@link #appendToBuffer()}.
 * Answers {@code hash} with the first monitor's identity hash.
 */
public final class ContentionTarget {
    /** The contended monitor's class. */
    public static final class Lock {
    }

    /** The second contended monitor's class. */
    public static final class Side {
    }

    public static final int POOL = 10;

    static final Lock LOCK = new Lock();
    static final Side SIDE = new Side();
    static final StringBuffer BUFFER = new StringBuffer();
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

    static void holdSide() {
        synchronized (SIDE) {
            pause(20);
        }
    }

    static void contendSide() {
        synchronized (SIDE) {
            sink++;
        }
    }

    static void holdBuffer() {
        synchronized (BUFFER) {
            BUFFER.setLength(0);
            pause(20);
        }
    }

    static void appendToBuffer() {
        BUFFER.append('x');
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Starts the holders and their contenders. */
    static void startContending() {
        TargetMain.start("holder", () -> {
            while (!Thread.currentThread().isInterrupted()) {
                hold();
                pause(2);
            }
        });
        for (int i = 1; i <= 2 + POOL; i++) {
            TargetMain.start(i <= 2 ? "contender-" + i : "pool-" + (i - 2), () -> {
                while (!Thread.currentThread().isInterrupted()) {
                    contend();
                    pause(1);
                }
            });
        }
        TargetMain.start("side-holder", () -> {
            while (!Thread.currentThread().isInterrupted()) {
                holdSide();
                pause(2);
            }
        });
        TargetMain.start("side-contender", () -> {
            while (!Thread.currentThread().isInterrupted()) {
                contendSide();
                pause(1);
            }
        });
        TargetMain.start("buffer-holder", () -> {
            while (!Thread.currentThread().isInterrupted()) {
                holdBuffer();
                pause(2);
            }
        });
        TargetMain.start("buffer-contender", () -> {
            while (!Thread.currentThread().isInterrupted()) {
                appendToBuffer();
                pause(1);
            }
        });
    }

    public static void main(String[] args) throws Exception {
        startContending();
        TargetMain.serve(line -> line.equals("hash") ? Integer.toHexString(System.identityHashCode(LOCK)) : "unknown " + line);
    }
}
