package dev.jvmticli.analysis;

import dev.jvmticli.client.ThreadEntry;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/** The threads that used the most CPU between two snapshots. */
public final class CpuTop {
    /** A thread with the CPU it used during the interval, as a share of one CPU. */
    public record Entry(ThreadEntry thread, long cpuNanosInInterval, double cpuPercent) {
    }

    private CpuTop() {
    }

    /**
     * The limit busiest threads of after, by CPU used since before (a thread new since then counts
     * all its CPU), over elapsedNanos of wall time; busiest first, then by id.
     */
    public static List<Entry> between(List<ThreadEntry> before, List<ThreadEntry> after, long elapsedNanos, int limit) {
        Map<Long, ThreadEntry> earlier = before.stream().collect(Collectors.toMap(ThreadEntry::id, Function.identity(), (a, b) -> a));
        return after.stream()
                .map(t -> {
                    ThreadEntry previous = earlier.get(t.id());
                    long used = t.cpuNanos() < 0 ? 0
                            : previous == null || previous.cpuNanos() < 0 ? t.cpuNanos()
                            : Math.max(0, t.cpuNanos() - previous.cpuNanos());
                    return new Entry(t, used, elapsedNanos <= 0 ? 0 : 100.0 * used / elapsedNanos);
                })
                .sorted(Comparator.comparingLong(Entry::cpuNanosInInterval).reversed().thenComparingLong(e -> e.thread().id()))
                .limit(limit)
                .toList();
    }
}
