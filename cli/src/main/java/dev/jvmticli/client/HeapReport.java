package dev.jvmticli.client;

/**
 * The answer to {@code heap}: the text of the JDK's GC.class_histogram (with {@code -all} unless
 * live, when the JVM runs a full GC first) and what it cost. safepoints is null when the JVM does
 * not count its safepoints (it runs with -XX:-UsePerfData), or when earlierPauseIncluded: the JVM's
 * totals, read before it, still lacked the time of an earlier pause (they came out longer than the
 * command), so the histogram's own pause cannot be told. startedNanos is the target's monotonic
 * clock when the histogram began: only the difference between two reports means something.
 * afterGc is null unless the request asked to wait for a GC first.
 */
public record HeapReport(boolean live, String command, long startedNanos, long elapsedNanos, AfterGc afterGc, Safepoints safepoints,
                         boolean earlierPauseIncluded, String histogram) {
    /**
     * The wait for the next GC pause before the histogram: whether one came within gcWaitMillis, how
     * long it took, and the safepoints the JVM counted meanwhile (that GC's, and any other's; null
     * where it counts none): the target's own pauses, not the histogram's.
     */
    public record AfterGc(boolean gcCame, long waitedNanos, long gcWaitMillis, Safepoints safepoints) {
    }

    /**
     * The safepoints the JVM counted while the histogram ran, in whole milliseconds as the JVM
     * keeps them: reaching them (bringing every thread to a stop) and at them (the operation).
     * Another cause's safepoint in that time is counted too; count tells.
     */
    public record Safepoints(long count, long atSafepointMillis, long reachingMillis) {
        public long pausedMillis() {
            return atSafepointMillis + reachingMillis;
        }
    }
}
