package dev.jvmticli.analysis;

/**
 * Percentiles from the agent's log-linear latency histogram ({@code [low, high, count]} buckets,
 * ascending): the value at rank ceil(p * calls) is its bucket's midpoint, held within the exact
 * minimum and maximum. A bucket is at most 1/64 of its lower bound wide, so the value given is
 * within 1/128 (0.8%) of the true one.
 */
public final class Latency {
    /** The stated bound on a percentile's relative error. */
    public static final double RELATIVE_ERROR = 1.0 / 128;

    private Latency() {
    }

    /** The p-th quantile (0 < p <= 1) in nanoseconds; 0 when there are no calls. */
    public static long percentile(long[][] buckets, long minNanos, long maxNanos, double p) {
        long calls = 0;
        for (long[] bucket : buckets) {
            calls += bucket[2];
        }
        if (calls == 0) {
            return 0;
        }
        long rank = Math.max(1, (long) Math.ceil(p * calls));
        long seen = 0;
        for (long[] bucket : buckets) {
            seen += bucket[2];
            if (seen >= rank) {
                long width = bucket[1] - bucket[0];
                long value = width <= 1 ? bucket[0] : bucket[0] + width / 2;
                return Math.max(minNanos, Math.min(maxNanos, value));
            }
        }
        return maxNanos;
    }
}
