package dev.jvmticli.client;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;

/**
 * The JVM's pause totals since it started, as the agent read them (pause_totals.h).
 *
 * @param nanos       when read, CLOCK_MONOTONIC of the target (as {@link CpuRead})
 * @param safepoints  HotSpot's safepoint totals, whole milliseconds; null where the JVM does not count them
 * @param collectors  each GarbageCollectorMXBean's totals
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record PauseTotals(long nanos, Safepoints safepoints, List<Collector> collectors) {
    /**
     * @param count             safepoints begun
     * @param atSafepointMillis time at them (the VM operations)
     * @param reachingMillis    time bringing the threads to them
     */
    public record Safepoints(long count, long atSafepointMillis, long reachingMillis) {
    }

    /** A collector's count of collections and their time, as its MXBean counts them. */
    public record Collector(String name, long count, long millis) {
    }
}
