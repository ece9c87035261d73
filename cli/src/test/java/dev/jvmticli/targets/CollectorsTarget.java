package dev.jvmticli.targets;

import dev.jvmticli.testing.TargetMain;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.stream.Collectors;

/**
 * Churns a small heap (run it with a small -Xmx) with Marker[] arrays in {@link #churn()}, some of
 * them kept for a while, while "contender-1" and "contender-2" block behind "holder" on a Lock.
 * Answers {@code hash} with the lock's identity hash and {@code gc} with the collectors' MXBean names.
 */
public final class CollectorsTarget {
    /** The class the allocation samples should be dominated by. */
    public static final class Marker {
    }

    /** The contended monitor's class. */
    public static final class Lock {
    }

    static final Lock LOCK = new Lock();
    static final Object[] KEPT = new Object[256];
    static volatile Object sink;

    private CollectorsTarget() {
    }

    static void churn(int round) {
        for (int i = 0; i < 100; i++) {
            sink = new Marker[256];
        }
        KEPT[round % KEPT.length] = sink; // a live set that turns over, so old objects die too
    }

    static void hold() throws InterruptedException {
        synchronized (LOCK) {
            Thread.sleep(20);
        }
    }

    static void contend() {
        synchronized (LOCK) {
            sink = LOCK;
        }
    }

    /** Sleeps; false when interrupted. */
    private static boolean pause(long millis) {
        try {
            Thread.sleep(millis);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    public static void main(String[] args) throws Exception {
        TargetMain.start("allocator", () -> {
            for (int round = 0; ; round++) {
                churn(round);
                if (!pause(1)) {
                    return;
                }
            }
        });
        TargetMain.start("holder", () -> {
            while (!Thread.currentThread().isInterrupted()) {
                try {
                    hold();
                } catch (InterruptedException e) {
                    return;
                }
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
        TargetMain.serve(line -> switch (line) {
            case "hash" -> Integer.toHexString(System.identityHashCode(LOCK));
            case "gc" -> ManagementFactory.getGarbageCollectorMXBeans().stream().map(GarbageCollectorMXBean::getName)
                    .collect(Collectors.joining(","));
            default -> "unknown " + line;
        });
    }
}
