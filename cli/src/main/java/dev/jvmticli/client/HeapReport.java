package dev.jvmticli.client;

/**
 * The answer to {@code heap}: the text of the JDK's GC.class_histogram (with {@code -all} unless
 * live, when the JVM runs a full GC first) and what it cost. safepoints is null when the JVM does
 * not count its safepoints (it runs with -XX:-UsePerfData).
 */
public record HeapReport(boolean live, String command, long elapsedNanos, Safepoints safepoints, String histogram) {
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
