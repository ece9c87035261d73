package dev.jvmticli.analysis;

import dev.jvmticli.client.RunningThread;
import dev.jvmticli.client.ThreadEntry;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/** The threads that used the most CPU between two snapshots. */
public final class CpuTop {
    /** A thread with the CPU it used during the interval, as a share of one CPU. */
    public record Entry<T extends RunningThread>(T thread, long cpuNanosInInterval, double cpuPercent) {
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
        Map<String, T> earlier = before.stream().collect(Collectors.toMap(RunningThread::identity, Function.identity(), (a, b) -> a));
        return after.stream()
                .map(t -> {
                    T previous = earlier.get(t.identity());
                    long used = t.cpuNanos() < 0 ? 0
                            : previous == null || previous.cpuNanos() < 0 ? t.cpuNanos()
                            : Math.max(0, t.cpuNanos() - previous.cpuNanos());
                    return new Entry<T>(t, used, elapsedNanos <= 0 ? 0 : 100.0 * used / elapsedNanos);
                })
                .sorted(Comparator.<Entry<T>>comparingLong(Entry::cpuNanosInInterval).reversed().thenComparing(Entry::thread, JAVA_BY_ID_THEN_VM_BY_NAME))
                .limit(limit)
                .toList();
    }
}
