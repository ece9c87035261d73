package dev.jvmticli.targets;

import dev.jvmticli.testing.TargetMain;

/**
 * Waits `dump` records over its rounds, each with a known cause: a monitor of a class of its own,
 * {@link Ledger}, that "ledger-owner" holds HOLD_MILLIS at a time while WAITERS threads
 * "ledger-waiter-N" keep entering it (each holds it for an increment only); and "gc-caller", which
 * calls System.gc() every GC_EVERY_MILLIS. The JVM's own -Xlog:safepoint and -Xlog:gc say when each
 * collection stopped it. Answers {@code hash} with the monitor's identity hash.
 */
public final class DumpWaitsTarget {
    /** The contended monitor's class. */
    public static final class Ledger {
    }

    public static final int WAITERS = 3;
    static final long HOLD_MILLIS = 100;
    static final long GC_EVERY_MILLIS = 700;

    static final Ledger LEDGER = new Ledger();
    static volatile long sink;

    private DumpWaitsTarget() {
    }

    static void holdLedger() {
        synchronized (LEDGER) {
            pause(HOLD_MILLIS);
        }
    }

    static void enterLedger() {
        synchronized (LEDGER) {
            sink++;
        }
    }

    public static void main(String[] args) throws Exception {
        TargetMain.start("ledger-owner", () -> {
            for (;;) {
                holdLedger();
                pause(5);
            }
        });
        for (int i = 1; i <= WAITERS; i++) {
            TargetMain.start("ledger-waiter-" + i, () -> {
                for (;;) {
                    enterLedger();
                    pause(1);
                }
            });
        }
        TargetMain.start("gc-caller", () -> {
            for (;;) {
                pause(GC_EVERY_MILLIS);
                System.gc();
            }
        });
        TargetMain.serve(line -> line.equals("hash") ? Integer.toHexString(System.identityHashCode(LEDGER)) : "unknown " + line);
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
