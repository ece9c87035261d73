package dev.jvmticli.analysis;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.jvmticli.client.PauseTotals;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The JVM's pauses between two reads of its totals ({@link PauseTotals}): the safepoints begun,
 * the time at them and reaching them (whole milliseconds, as the JVM keeps them; null where it
 * does not count them), and each collector's collections and their time (a collector in both reads).
 *
 * @param fromNanos when the first was read, CLOCK_MONOTONIC of the target
 * @param toNanos   when the second was read
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record PauseDelta(long fromNanos, long toNanos, PauseTotals.Safepoints safepoints, List<PauseTotals.Collector> collectors) {
    /** The time between the reads. */
    public long nanos() {
        return toNanos - fromNanos;
    }

    public static PauseDelta between(PauseTotals before, PauseTotals after) {
        PauseTotals.Safepoints safepoints = before.safepoints() == null || after.safepoints() == null ? null
                : new PauseTotals.Safepoints(after.safepoints().count() - before.safepoints().count(),
                        after.safepoints().atSafepointMillis() - before.safepoints().atSafepointMillis(),
                        after.safepoints().reachingMillis() - before.safepoints().reachingMillis());
        Map<String, PauseTotals.Collector> earlier = before.collectors().stream()
                .collect(Collectors.toMap(PauseTotals.Collector::name, Function.identity(), (a, b) -> a));
        List<PauseTotals.Collector> collectors = after.collectors().stream().filter(c -> earlier.containsKey(c.name()))
                .map(c -> new PauseTotals.Collector(c.name(), c.count() - earlier.get(c.name()).count(), c.millis() - earlier.get(c.name()).millis()))
                .toList();
        return new PauseDelta(before.nanos(), after.nanos(), safepoints, collectors);
    }
}
