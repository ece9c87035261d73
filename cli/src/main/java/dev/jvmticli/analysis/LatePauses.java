package dev.jvmticli.analysis;

import dev.jvmticli.client.PausesReport;
import dev.jvmticli.client.PausesReport.Pause;
import dev.jvmticli.client.TtspRecording;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Which threads each slow-to-reach safepoint waited for: async-profiler's time-to-safepoint
 * samples, each given to the pause whose reaching it was taken in.
 * <p>
 * A sample is in one of async-profiler's windows (the VM thread's waiting, on the recording's own
 * clock, as the samples are); a window is matched to the logged pause whose time to reach it
 * overlaps it most, by more than half of each. The log's reaching is on the JVM's uptime clock:
 * it is put on the wall clock by the offset the log's own decorations give (each line has both,
 * the wall clock to the millisecond only: the offset is the largest of endMillis less endUptime,
 * within a millisecond of the true one), and widened by {@link #CLOCK_SLACK_NANOS} on each side.
 * The waiting VM thread's samples and jvmti-cli's own threads' (the agent thread, by its OS
 * thread id, its helpers and async-profiler's own thread, by name) are left out and counted apart.
 */
public final class LatePauses {
    static final long CLOCK_SLACK_NANOS = 1_000_000;
    /** async-profiler's own Java thread (its JFR timer): it runs for jvmti-cli, not for the target. */
    static final Set<String> PROFILER_THREADS = Set.of("Async-profiler Timer");

    /** A stack sampled this many times, its frames innermost first. */
    public record Stack(long samples, List<String> frames) {
    }

    /** A thread that ran while the safepoint was reached: its name, OS thread id, samples and stacks, most sampled first. */
    public record LateThread(String name, long osThreadId, long samples, List<Stack> stacks) {
    }

    /**
     * One slow pause: whether its safepoint began before async-profiler's sampling did, or after
     * something else stopped it (then no window of it can be in the recording), the window of
     * async-profiler's it matched (null: none did), the target's threads sampled in it, most sampled
     * first, and the samples left out as the tool's own or the waiting VM thread's.
     */
    public record Late(boolean beganBeforeSampling, boolean beganAfterSamplingStopped, TtspRecording.Window window, long samples,
                       long ownSamples, long vmThreadSamples, List<LateThread> threads) {
    }

    private LatePauses() {
    }

    /** Each pause slower to reach than thresholdNanos, with the threads it waited for (keyed by identity: a pause of the report). */
    public static Map<Pause, Late> of(PausesReport report, TtspRecording.Recording recording, long thresholdNanos, long agentTid) {
        long wallOffset = report.pauses().stream().mapToLong(p -> p.endMillis() * 1_000_000L - p.endUptimeNanos()).max().orElse(0);
        long samplingStoppedNanos = samplingStoppedEarlyNanos(report.lateThreads());
        Map<Pause, Late> late = new IdentityHashMap<>();
        for (Pause pause : Pauses.slowToReach(report, thresholdNanos)) {
            long start = pause.endUptimeNanos() - pause.totalNanos() + wallOffset;
            TtspRecording.Window window = matching(recording.windows(), start - CLOCK_SLACK_NANOS,
                    start + pause.reachingNanos() + CLOCK_SLACK_NANOS, pause.reachingNanos());
            // the window's start (startedMillis) is read once async-profiler has started
            boolean beganBefore = start < report.startedMillis() * 1_000_000L;
            late.put(pause, window == null ? new Late(beganBefore, start > samplingStoppedNanos, null, 0, 0, 0, List.of())
                    : threads(beganBefore, window, recording.samples(), agentTid));
        }
        return late;
    }

    /**
     * When something other than this command stopped async-profiler (its stop then failed, or it
     * was no longer this command's run and not stopped), the
     * time it last wrote the recording (its stop finishes it) in wall-clock nanoseconds; otherwise
     * never (Long.MAX_VALUE).
     */
    private static long samplingStoppedEarlyNanos(PausesReport.LateThreads late) {
        return late == null || !late.stoppedElsewhere() || late.recordingWrittenMillis() == null ? Long.MAX_VALUE
                : late.recordingWrittenMillis() * 1_000_000L;
    }

    /** The window that overlaps [from, to] most, by more than half of itself and of reachingNanos; or null. */
    static TtspRecording.Window matching(List<TtspRecording.Window> windows, long from, long to, long reachingNanos) {
        TtspRecording.Window best = null;
        long bestOverlap = 0;
        for (TtspRecording.Window w : windows) {
            long overlap = Math.min(to, w.endNanos()) - Math.max(from, w.startNanos());
            if (overlap > bestOverlap && 2 * overlap > w.durationNanos() && 2 * overlap > reachingNanos) {
                best = w;
                bestOverlap = overlap;
            }
        }
        return best;
    }

    private static Late threads(boolean beganBefore, TtspRecording.Window window, List<TtspRecording.Sample> samples, long agentTid) {
        Map<Long, Map<List<String>, Long>> stacksByThread = new LinkedHashMap<>();
        Map<Long, String> names = new LinkedHashMap<>();
        long own = 0;
        long vmThread = 0;
        long target = 0;
        for (TtspRecording.Sample s : samples) {
            if (s.nanos() < window.startNanos() || s.nanos() > window.endNanos()) {
                continue;
            }
            if (s.osThreadId() == window.osThreadId()) {
                vmThread++;
            } else if (s.osThreadId() == agentTid || ProfileSplit.HELPERS.contains(s.thread()) || PROFILER_THREADS.contains(s.thread())) {
                own++;
            } else {
                target++;
                names.putIfAbsent(s.osThreadId(), s.thread());
                stacksByThread.computeIfAbsent(s.osThreadId(), t -> new LinkedHashMap<>()).merge(s.frames(), 1L, Long::sum);
            }
        }
        List<LateThread> threads = new ArrayList<>();
        stacksByThread.forEach((tid, stacks) -> {
            List<Stack> sorted = stacks.entrySet().stream().map(e -> new Stack(e.getValue(), e.getKey()))
                    .sorted(Comparator.comparingLong(Stack::samples).reversed()).toList();
            threads.add(new LateThread(names.get(tid), tid, sorted.stream().mapToLong(Stack::samples).sum(), sorted));
        });
        threads.sort(Comparator.comparingLong(LateThread::samples).reversed());
        return new Late(beganBefore, false, window, target, own, vmThread, List.copyOf(threads));
    }
}
