package dev.jvmticli.client;

import java.util.List;

/**
 * {@code nativemem.stop}: the window's length, the agent thread's OS thread id (its allocations are
 * the tool's own), the allocations async-profiler dropped (null when it did not say), NMT's baseline and summary.diff texts (or why there are none), and async-profiler's
 * JFR recording of every allocation and free, as base64 pieces (or why it is missing).
 */
public record NativeMemReport(String profiler, long durationNanos, long agentTid, Long skippedAllocations, String nativeMemoryBaseline,
                              String nativeMemoryDiff, String nativeMemoryTrackingError, long recordingBytes,
                              List<String> recording, String recordingError) {
}
