package dev.jvmticli.targets;

import dev.jvmticli.testing.TargetMain;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Waits `dump` records over its rounds, each with a known cause: a monitor of a class of its own,
 * {@link Ledger}, that "ledger-owner" holds HOLD_MILLIS at a time while WAITERS threads
 * "ledger-waiter-N" keep entering it (each holds it for an increment only); the same with a
 * ReentrantLock, {@link #VAULT}, "vault-owner" and "vault-waiter-N"; and "gc-caller", which
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
    static final ReentrantLock VAULT = new ReentrantLock();
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

    static void holdVault() {
        VAULT.lock();
        try {
            pause(HOLD_MILLIS);
        } finally {
            VAULT.unlock();
        }
    }

    static void enterVault() {
        VAULT.lock();
        try {
            sink++;
        } finally {
            VAULT.unlock();
        }
    }

    public static void main(String[] args) throws Exception {
        startOwnerAndWaiters("ledger", DumpWaitsTarget::holdLedger, DumpWaitsTarget::enterLedger);
        startOwnerAndWaiters("vault", DumpWaitsTarget::holdVault, DumpWaitsTarget::enterVault);
        TargetMain.start("gc-caller", () -> {
            for (;;) {
                pause(GC_EVERY_MILLIS);
                System.gc();
            }
        });
        TargetMain.serve(line -> line.equals("hash") ? Integer.toHexString(System.identityHashCode(LEDGER)) : "unknown " + line);
    }

    /** "name-owner" holds the lock, "name-waiter-N" keep taking it. */
    private static void startOwnerAndWaiters(String name, Runnable hold, Runnable enter) {
        TargetMain.start(name + "-owner", () -> {
            for (;;) {
                hold.run();
                pause(5);
            }
        });
        for (int i = 1; i <= WAITERS; i++) {
            TargetMain.start(name + "-waiter-" + i, () -> {
                for (;;) {
                    enter.run();
                    pause(1);
                }
            });
        }
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
