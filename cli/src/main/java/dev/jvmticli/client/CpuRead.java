package dev.jvmticli.client;

import java.util.OptionalLong;

/**
 * When the agent read an answer's CPU times: CLOCK_MONOTONIC nanoseconds in the target before the first
 * and after the last. Every CPU time of the answer was read between them; -1 where the agent's clock failed.
 */
public record CpuRead(long startNanos, long endNanos) {
    /**
     * The target's own span from this reading to a later one, start to start; empty where either carries
     * no stamps, stamps out of order, or a span that is not positive.
     */
    public static OptionalLong span(CpuRead earlier, CpuRead later) {
        if (earlier == null || later == null || !earlier.stamped() || !later.stamped() || later.startNanos <= earlier.startNanos) {
            return OptionalLong.empty();
        }
        return OptionalLong.of(later.startNanos - earlier.startNanos);
    }

    private boolean stamped() {
        return startNanos > 0 && endNanos >= startNanos;
    }
}
