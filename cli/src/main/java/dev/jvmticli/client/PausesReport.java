package dev.jvmticli.client;

import java.util.List;

/**
 * The answer to {@code pauses.stop}: every safepoint the JVM logged while the session ran, as its
 * own -Xlog:safepoint line says (a figure its JDK does not log is null), with the collector's
 * -Xlog:gc pause line logged inside it, if any. The window is [startedMillis, stoppedMillis] on the
 * wall clock; logOutput is the unified-logging output the agent added; logRemoved says whether it
 * was taken away again (logRemoveError says why not); dropped counts pauses past the agent's bound,
 * cutLines lines too long to read, unreadLines lines in a form the agent does not read;
 * lateThreads is null unless async-profiler's time-to-safepoint samples were asked for.
 */
public record PausesReport(long durationNanos, long startedMillis, long stoppedMillis, String logOutput, boolean logRemoved,
                           String logRemoveError, long dropped, long cutLines, long unreadLines, List<Pause> pauses,
                           LateThreads lateThreads) {
    public PausesReport {
        pauses = pauses == null ? List.of() : List.copyOf(pauses);
    }

    /**
     * async-profiler's time-to-safepoint recording (JFR, as base64 pieces; recordingError says why
     * it is missing or cut): a sample per intervalNanos of CPU of each thread running while the JVM
     * was bringing its threads to a safepoint, and each such window. agentTid is the OS thread id of
     * the agent's thread: its samples are the tool's. stopError is async-profiler's answer to the
     * session's stop when it failed (something else had stopped it), else null; runNotOurs that at
     * the window's end async-profiler no longer wrote this recording (something else had stopped
     * it: a run it had then was not this command's, and was not stopped); recordingWrittenMillis
     * when async-profiler last wrote the recording (its stop finishes it), null if unknown.
     * recordingBytesAfterStart and recordingBytesAfterStop are its size as async-profiler's start
     * (which writes the recording's header) and the session's stop of it returned, null if unknown;
     * recordingReplacedAt the first step ("start", "stop", "read") after which the agent's
     * descriptor no longer named it (closed, or its number reused for another file), else null.
     */
    public record LateThreads(String profiler, long intervalNanos, long agentTid, long recordingBytes, List<String> recording,
                              String recordingError, String stopError, boolean runNotOurs, Long recordingWrittenMillis,
                              Long recordingBytesAfterStart, Long recordingBytesAfterStop, String recordingReplacedAt) {
        public LateThreads {
            recording = recording == null ? List.of() : List.copyOf(recording);
        }

        /** Whether something other than this command stopped async-profiler's run in the window. */
        public boolean stoppedElsewhere() {
            return stopError != null || runNotOurs;
        }
    }

    /**
     * One safepoint: its VM operation, when its line was logged (its end), the time to reach it, at
     * it (null on JDK 11, which logs no such figure) and in all, in nanoseconds; gc is the collector's pause line ("Pause Young (Normal) (G1
     * Evacuation Pause) 24M->3M(256M) 3.456ms") and gcId its GC id.
     */
    public record Pause(String operation, long endMillis, long endUptimeNanos, Long sinceLastNanos, long reachingNanos,
                        Long cleanupNanos, Long atSafepointNanos, Long leavingNanos, long totalNanos, Long threadsRunnable,
                        Long gcId, String gc) {
        /** When the safepoint began, on the wall clock (its end less its total), in milliseconds. */
        public long startMillis() {
            return endMillis - Math.round(totalNanos / 1e6);
        }
    }
}
