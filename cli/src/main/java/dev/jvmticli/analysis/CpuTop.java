package dev.jvmticli.analysis;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.jvmticli.client.RunningThread;
import dev.jvmticli.client.ThreadEntry;
import dev.jvmticli.client.ThreadUsage;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/** The threads that used the most CPU between two snapshots. */
public final class CpuTop {
    /**
     * A thread with the CPU it used during the interval, as a share of one CPU; where the snapshots
     * carried usage ({@link ThreadUsage}), also its user and system CPU and the bytes it allocated
     * during the interval, each null when unknown.
     */
    public record Entry<T extends RunningThread>(T thread, long cpuNanosInInterval, double cpuPercent,
                                                 @JsonInclude(JsonInclude.Include.NON_NULL) Long userNanosInInterval,
                                                 @JsonInclude(JsonInclude.Include.NON_NULL) Long systemNanosInInterval,
                                                 @JsonInclude(JsonInclude.Include.NON_NULL) Long allocatedBytesInInterval) {
        public Entry(T thread, long cpuNanosInInterval, double cpuPercent) {
            this(thread, cpuNanosInInterval, cpuPercent, null, null, null);
        }
    }

    private static final Comparator<RunningThread> JAVA_BY_ID_THEN_VM_BY_NAME = Comparator
            .comparing((RunningThread t) -> !(t instanceof ThreadEntry))
            .thenComparingLong(t -> t instanceof ThreadEntry java ? java.id() : 0)
            .thenComparing(RunningThread::name, Comparator.nullsFirst(Comparator.naturalOrder()));

    private CpuTop() {
    }

    /**
     * The limit busiest threads of after, by CPU used since before (a thread new since then counts
     * all its CPU), over elapsedNanos of wall time; busiest first, then Java threads by id, then by name.
     */
    public static <T extends RunningThread> List<Entry<T>> between(List<? extends T> before, List<? extends T> after, long elapsedNanos,
                                                                   int limit) {
        return between(before, after, Map.of(), Map.of(), elapsedNanos, limit);
    }

    /**
     * As {@link #between(List, List, long, int)}, with each thread's usage figures (by identity) of
     * the same snapshots: a figure known in both counts its difference; in after alone, for a thread
     * new since before, all of it; otherwise it is unknown.
     */
    public static <T extends RunningThread> List<Entry<T>> between(List<? extends T> before, List<? extends T> after,
                                                                   Map<String, ThreadUsage> usageBefore, Map<String, ThreadUsage> usageAfter,
                                                                   long elapsedNanos, int limit) {
        Map<String, T> earlier = before.stream().collect(Collectors.toMap(RunningThread::identity, Function.identity(), (a, b) -> a));
        return after.stream()
                .map(t -> {
                    T previous = earlier.get(t.identity());
                    long used = t.cpuNanos() < 0 ? 0
                            : previous == null || previous.cpuNanos() < 0 ? t.cpuNanos()
                            : Math.max(0, t.cpuNanos() - previous.cpuNanos());
                    ThreadUsage now = usageAfter.get(t.identity());
                    ThreadUsage then = previous == null ? new ThreadUsage(0L, 0L, 0L) : usageBefore.get(t.identity());
                    return new Entry<T>(t, used, elapsedNanos <= 0 ? 0 : 100.0 * used / elapsedNanos,
                            since(then, now, ThreadUsage::userNanos), since(then, now, ThreadUsage::systemNanos),
                            since(then, now, ThreadUsage::allocatedBytes));
                })
                .sorted(Comparator.<Entry<T>>comparingLong(Entry::cpuNanosInInterval).reversed().thenComparing(Entry::thread, JAVA_BY_ID_THEN_VM_BY_NAME))
                .limit(limit)
                .toList();
    }

    private static Long since(ThreadUsage then, ThreadUsage now, Function<ThreadUsage, Long> figure) {
        Long before = then == null ? null : figure.apply(then);
        Long after = now == null ? null : figure.apply(now);
        return before == null || after == null ? null : Math.max(0, after - before);
    }
}
