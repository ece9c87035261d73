package dev.jvmticli.targets;

import dev.jvmticli.testing.TargetMain;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryUsage;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A leak next to churn: {@link #leak()} keeps LEAK_PER_TICK {@link Leaked} in a static map every
 * 10 ms, forever; {@link #churn()} allocates 100 times those bytes in short-lived {@link Churn}
 * arrays. Three direct buffers of 1 MiB are held from the start. Commands: {@code leaked} prints
 * how many Leaked the map holds; {@code memory} prints what the JVM's MXBeans say about itself;
 * {@code gcs} the collections its GC MXBeans counted; {@code gc} runs System.gc() (a major collection on ZGC);
 * {@code gc every N} starts a thread that runs it every N ms, so that no slow client stretches the gaps. With the argument {@code on-command} it only
 * churns until told {@code leak N}: then its churning thread leaks N Leaked at the same rate, from the same site,
 * and prints how many the map holds.
 */
public final class LeakTarget {
    static final int LEAK_PER_TICK = 20;
    static final Map<Long, Leaked> LEAK = new ConcurrentHashMap<>();
    static final List<ByteBuffer> DIRECT = new ArrayList<>();
    static volatile Object sink;

    private LeakTarget() {
    }

    /** 8 longs: more bytes per instance than the map's own nodes, so it leads the growth. */
    public static final class Leaked {
        long a, b, c, d, e, f, g, h;
    }

    /** The garbage: arrays of these die young. */
    public static final class Churn {
    }

    static void leak() {
        for (int i = 0; i < LEAK_PER_TICK; i++) {
            LEAK.put((long) LEAK.size(), new Leaked());
        }
    }

    static void churn() {
        for (int i = 0; i < LEAK_PER_TICK * 100; i++) {
            sink = new Churn[16]; // 80 bytes with compressed oops, as a Leaked
        }
    }

    static String memory() {
        StringBuilder out = new StringBuilder();
        MemoryUsage heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
        out.append("heap.committed=").append(heap.getCommitted()).append(" heap.max=").append(heap.getMax());
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            out.append(" pool.").append(pool.getName().replace(' ', '_')).append(".committed=").append(pool.getUsage().getCommitted());
        }
        for (BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
            out.append(" buffers.").append(pool.getName().replace(' ', '_')).append(".count=").append(pool.getCount())
                    .append(" buffers.").append(pool.getName().replace(' ', '_')).append(".used=").append(pool.getMemoryUsed());
        }
        out.append(" threads=").append(ManagementFactory.getThreadMXBean().getThreadCount());
        return out.toString();
    }

    /** Ticks the churning thread still leaks for: the leak is sampled as faithfully as its churn (its TLABs refill often). */
    static final java.util.concurrent.atomic.AtomicInteger LEAK_TICKS = new java.util.concurrent.atomic.AtomicInteger();

    static String leakNow(int count) throws InterruptedException {
        LEAK_TICKS.set(count / LEAK_PER_TICK);
        while (LEAK_TICKS.get() > 0) {
            Thread.sleep(10);
        }
        return Integer.toString(LEAK.size());
    }

    /** The collections: ZGC's beans of its pauses are left out, their cycles counted. */
    static long gcs() {
        return ManagementFactory.getGarbageCollectorMXBeans().stream().filter(gc -> !gc.getName().endsWith(" Pauses"))
                .mapToLong(GarbageCollectorMXBean::getCollectionCount).sum();
    }

    static String collectEvery(long millis) {
        TargetMain.start("gc every " + millis + " ms", () -> {
            while (true) {
                System.gc();
                try {
                    Thread.sleep(millis);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
        return Long.toString(gcs());
    }

    public static void main(String[] args) throws Exception {
        boolean onCommand = List.of(args).contains("on-command");
        for (int i = 0; i < 3; i++) {
            DIRECT.add(ByteBuffer.allocateDirect(1 << 20));
        }
        TargetMain.start("leak", () -> {
            while (true) {
                if (!onCommand || LEAK_TICKS.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                    leak();
                }
                churn();
                try {
                    Thread.sleep(10);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
        TargetMain.serve(line -> switch (line) {
            case "leaked" -> Integer.toString(LEAK.size());
            case "memory" -> memory();
            case "gcs" -> Long.toString(gcs());
            case "gc" -> {
                System.gc();
                yield Long.toString(gcs());
            }
            default -> {
                if (line.startsWith("gc every ")) {
                    yield collectEvery(Long.parseLong(line.substring("gc every ".length())));
                }
                try {
                    yield line.startsWith("leak ") ? leakNow(Integer.parseInt(line.substring(5))) : "unknown command " + line;
                } catch (InterruptedException e) {
                    yield "interrupted";
                }
            }
        });
    }
}
