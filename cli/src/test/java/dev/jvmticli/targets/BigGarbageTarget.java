package dev.jvmticli.targets;

import dev.jvmticli.testing.TargetMain;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;

/**
 * Garbage in large arrays: a thread drops a fresh 1 MiB byte[] every 2 ms (on a heap of 256 MB,
 * each is a humongous object for G1). Command: {@code full gcs} prints the collections of the
 * beans that count full collections ("... Old Generation", "MarkSweepCompact", "PS MarkSweep").
 */
public final class BigGarbageTarget {
    static volatile byte[] sink;

    private BigGarbageTarget() {
    }

    static long fullCollections() {
        return ManagementFactory.getGarbageCollectorMXBeans().stream()
                .filter(gc -> gc.getName().endsWith("Old Generation") || gc.getName().endsWith("MarkSweep")
                        || gc.getName().equals("MarkSweepCompact"))
                .mapToLong(GarbageCollectorMXBean::getCollectionCount).sum();
    }

    public static void main(String[] args) throws Exception {
        TargetMain.start("big-garbage", () -> {
            while (true) {
                sink = new byte[1 << 20];
                try {
                    Thread.sleep(2);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
        TargetMain.serve(line -> line.equals("full gcs") ? Long.toString(fullCollections()) : "unknown command " + line);
    }
}
