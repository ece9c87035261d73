package dev.jvmticli.client;

import java.util.List;

/**
 * {@code nativemem.stop}: the window's length, the agent thread's OS thread id (its allocations are
 * the tool's own), the allocations async-profiler dropped (null when it did not say), NMT's baseline and summary.diff texts (or why there are none), and async-profiler's
 * JFR recording of every allocation and free, as base64 pieces (or why it is missing).
 * watcherTid: the OS thread id of the agent's thread that bounds the recording (its allocations are the tool's too).
 * recordingCappedAfterNanos: when the recording passed maxRecordingBytes and async-profiler was
 * stopped, from the window's start (null: it ran to the end). arenasAtStart and arenasAtEnd:
 * glibc's arenas as the process's mappings show them (null, with arenasError, when unread).
 */
public record NativeMemReport(String profiler, long durationNanos, long agentTid, Long skippedAllocations, String nativeMemoryBaseline,
                              String nativeMemoryDiff, String nativeMemoryTrackingError, long recordingBytes,
                              List<String> recording, String recordingError, Long watcherTid, Long maxRecordingBytes, Long recordingCappedAfterNanos,
                              Arenas arenasAtStart, Arenas arenasAtEnd, String arenasError) {
    /**
     * The main arena's heap (the break, [heap] in smaps: mainFound, its length and resident bytes)
     * and the other arenas' heaps (mappings glibc made for them, told by their header: arenas
     * counts the arenas, heaps their heaps, with their read-write length and resident bytes).
     */
    public record Arenas(boolean mainFound, long mainBytes, long mainResident, long arenas, long heaps, long heapBytes, long heapResident) {
        public long resident() {
            return mainResident + heapResident;
        }
    }
}
