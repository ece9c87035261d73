package dev.jvmticli.client;

/**
 * The answer to {@code heap.dump}: the file the JVM wrote (its size, owner and mode, as the agent
 * found them right after), the heap's used bytes and the file system's free bytes it was checked
 * against before, the diagnostic command run and what it printed, and the pause: the safepoints the
 * JVM counted while it ran (null where it counts none, -XX:-UsePerfData, or when
 * earlierPauseIncluded, as for {@link HeapReport}).
 */
public record HeapDumpReport(String path, boolean live, int gzLevel, String command, long heapUsedBytes, long freeBytes,
                             long fileBytes, long fileUid, int fileMode, long startedNanos, long elapsedNanos,
                             HeapReport.Safepoints safepoints, boolean earlierPauseIncluded, String output) {
}
