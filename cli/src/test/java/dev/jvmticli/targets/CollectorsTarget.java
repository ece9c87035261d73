package dev.jvmticli.targets;

import dev.jvmticli.testing.TargetMain;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.stream.Collectors;

/**
 * Churns a small heap (run it with a small -Xmx) with Marker[] arrays in {@link #churn(int)}, some
 * of them kept for a while, while the threads of {@link ContentionTarget} contend on its Lock.
 * Answers {@code hash} with that lock's identity hash and {@code gc} with the collectors' MXBean names.
 */
public final class CollectorsTarget {
    /** The class the allocation samples should be dominated by. */
    public static final class Marker {
    }

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

    public static void main(String[] args) throws Exception {
        TargetMain.start("allocator", () -> {
            for (int round = 0; !Thread.currentThread().isInterrupted(); round++) {
                churn(round);
                try {
                    Thread.sleep(1);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
        ContentionTarget.startContending();
        TargetMain.serve(line -> switch (line) {
            case "hash" -> Integer.toHexString(System.identityHashCode(ContentionTarget.LOCK));
            case "gc" -> ManagementFactory.getGarbageCollectorMXBeans().stream().map(GarbageCollectorMXBean::getName)
                    .collect(Collectors.joining(","));
            default -> "unknown " + line;
        });
    }
}
