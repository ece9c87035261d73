package dev.jvmticli.client;

import java.util.List;

/**
 * The answer to {@code trace.stop}. methods are indexed by the probe ids' low bits: each method's
 * calls, exits by an exception (errors), summed and extreme durations, and its latency histogram's
 * non-empty buckets {@code [low, high, count]} (low inclusive, high exclusive, nanoseconds, ascending).
 * slowest: the slowest calls with their stacks; overThreshold: the calls at or over the threshold,
 * grouped by method, stack and how they ended (error: by an exception). Frames are {@code [frame method index, bci, line]}, innermost (the
 * traced method) first, indexing frameMethods. classes say each class's SHA-256 when read at the start
 * ({@link ClassState}), when the new bytes went in and after it was put back. cost: the JVM's metaspace and code cache bytes in use before the
 * classes were first read and after they were put back, and the compiled methods the session's
 * retransforms made not entrant (HotSpot's Compiler.codelist before and after each; -1: unknown).
 */
public record TraceReport(long durationNanos, long thresholdNanos, long droppedStacks, String restoreFailure, Cost cost,
                          List<ClassState> classes, List<MethodLatency> methods, List<SlowCall> slowest,
                          List<StackGroup> overThreshold, List<MethodRef> frameMethods) {
    public record Cost(long metaspaceBefore, long metaspaceAfter, long codeCacheBefore, long codeCacheAfter, long deoptimized) {
    }

    /**
     * One instrumented class's SHA-256 as first read, as the JVM held it when the new bytes went in
     * (replaced; empty when they never did) and as read after it was put back. The first read hands
     * its bytes back, so HotSpot keeps them as the class's own: all three are equal when it came back.
     */
    public record ClassState(String name, String sha256, String replacedSha256, String restoredSha256) {
        /** Whether the class came back with the bytes first read, which are also those it had when the new ones went in. */
        public boolean putBack() {
            boolean replacedAsRead = replacedSha256 == null || replacedSha256.isEmpty() || replacedSha256.equals(sha256);
            return replacedAsRead && sha256.equals(restoredSha256);
        }
    }


    public record MethodLatency(long calls, long errors, long totalNanos, long maxNanos, long minNanos, long[][] buckets) {
    }

    public record SlowCall(int method, long nanos, boolean error, long[][] frames) {
    }

    public record StackGroup(int method, boolean error, long calls, long totalNanos, long maxNanos, long[][] frames) {
    }
}
