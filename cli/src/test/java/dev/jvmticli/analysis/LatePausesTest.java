package dev.jvmticli.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jvmticli.client.PausesReport;
import dev.jvmticli.client.PausesReport.Pause;
import dev.jvmticli.client.TtspRecording;
import dev.jvmticli.client.TtspRecording.Sample;
import dev.jvmticli.client.TtspRecording.Window;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LatePausesTest {
    /** The wall clock less the JVM's uptime, in nanoseconds. */
    private static final long WALL = 1_000_000_000_000_000L;
    private static final long VM_THREAD = 100;
    private static final long AGENT = 50;
    private static final List<String> SPIN = List.of("dev.jvmticli.targets.PausesTarget.spin", "java.lang.Thread.run");
    private static final List<String> WORK = List.of("Worker.work");

    /** Reached in 510 ms, ended at uptime 10 s. */
    private static final Pause SLOW = pause(10_000_000_000L, 510_000_000L, 520_000_000L);
    /** Reached in 0.1 ms, ended at uptime 11.0003 s. */
    private static final Pause FAST = pause(11_000_300_000L, 100_000L, 2_000_000L);
    /** async-profiler's window of SLOW's reaching, 20 µs after the log's start. */
    private static final Window SLOW_WINDOW = new Window(WALL + 9_480_020_000L, 509_970_000L, VM_THREAD);
    private static final Window FAST_WINDOW = new Window(WALL + 10_998_300_000L, 100_000L, VM_THREAD);

    private static Pause pause(long endUptime, long reaching, long total) {
        // the log's wall clock is to the millisecond only
        return new Pause("G1CollectFull", Math.floorDiv(WALL + endUptime, 1_000_000L), endUptime, null, reaching, null,
                total - reaching, null, total, null, null, null);
    }

    private static PausesReport report(Pause... pauses) {
        return new PausesReport(3_000_000_000L, 0, 0, "file=/proc/self/fd/9", true, null, 0, 0, 0, List.of(pauses), null);
    }

    private static List<Sample> samples(Window window, long count, long tid, String thread, List<String> frames) {
        List<Sample> samples = new ArrayList<>();
        for (long i = 0; i < count; i++) {
            samples.add(new Sample(window.startNanos() + (i + 1) * window.durationNanos() / (count + 1), tid, thread, frames));
        }
        return samples;
    }

    @Test
    void eachSlowPauseHasTheThreadsSampledInItsWindowAndOnlyThose() {
        List<Sample> samples = new ArrayList<>(samples(SLOW_WINDOW, 400, 7, "late-loop", SPIN));
        samples.addAll(samples(SLOW_WINDOW, 2, 8, "worker", WORK));
        samples.addAll(samples(SLOW_WINDOW, 3, VM_THREAD, "VM Thread", List.of("SafepointSynchronize::begin")));
        samples.addAll(samples(SLOW_WINDOW, 1, AGENT, "jvmti-cli agent", List.of("poll")));
        samples.addAll(samples(SLOW_WINDOW, 1, 51, "jvmti-cli pause", List.of("read")));
        samples.addAll(samples(SLOW_WINDOW, 1, 52, "Async-profiler Timer", List.of("Profiler::timerLoop")));
        samples.addAll(samples(FAST_WINDOW, 1, 8, "worker", WORK));
        TtspRecording.Recording recording = new TtspRecording.Recording(List.of(SLOW_WINDOW, FAST_WINDOW), samples);

        Map<Pause, LatePauses.Late> late = LatePauses.of(report(SLOW, FAST), recording, 5_000_000L, AGENT);

        assertFalse(late.containsKey(FAST), "a pause quick to reach has no late threads");
        LatePauses.Late slow = late.get(SLOW);
        assertSame(SLOW_WINDOW, slow.window());
        assertEquals(402, slow.samples());
        assertEquals(3, slow.ownSamples());
        assertEquals(3, slow.vmThreadSamples());
        assertEquals(List.of(new LatePauses.LateThread("late-loop", 7, 400, List.of(new LatePauses.Stack(400, SPIN))),
                new LatePauses.LateThread("worker", 8, 2, List.of(new LatePauses.Stack(2, WORK)))), slow.threads());
    }

    @Test
    void aSlowPauseWithoutItsWindowHasNone() {
        TtspRecording.Recording recording = new TtspRecording.Recording(List.of(FAST_WINDOW), samples(FAST_WINDOW, 1, 8, "worker", WORK));
        LatePauses.Late slow = LatePauses.of(report(SLOW, FAST), recording, 5_000_000L, AGENT).get(SLOW);
        assertNull(slow.window());
        assertEquals(List.of(), slow.threads());
        assertFalse(slow.beganBeforeSampling());
        PausesReport startedLater = new PausesReport(3_000_000_000L, Math.floorDiv(WALL + 9_600_000_000L, 1_000_000L), 0,
                "file=/proc/self/fd/9", true, null, 0, 0, 0, List.of(SLOW, FAST), null);
        assertTrue(LatePauses.of(startedLater, recording, 5_000_000L, AGENT).get(SLOW).beganBeforeSampling(),
                "the sampling began in its reaching");
    }

    /**
     * Something else stopped async-profiler (its stop failed, or its run was no longer the command's):
     * a slow pause that began after its last write began after the sampling.
     */
    @Test
    void aSlowPauseAfterSomethingElseStoppedTheSamplingSaysSo() {
        TtspRecording.Recording recording = new TtspRecording.Recording(List.of(FAST_WINDOW), samples(FAST_WINDOW, 1, 8, "worker", WORK));
        long slowStartMillis = Math.floorDiv(SLOW_WINDOW.startNanos(), 1_000_000L);
        for (long writtenMillis : new long[] { slowStartMillis - 1, slowStartMillis + 100 }) {
            for (String stopError : new String[] { "Profiler is not active", null }) {
                for (boolean runNotOurs : new boolean[] { false, true }) {
                    PausesReport report = new PausesReport(3_000_000_000L, 0, 0, "file=/proc/self/fd/9", true, null, 0, 0, 0, List.of(SLOW, FAST),
                            new PausesReport.LateThreads("4.5", 1_000_000L, AGENT, 100, List.of(), null, stopError, runNotOurs, writtenMillis, 100L, 100L, null));
                    boolean after = LatePauses.of(report, recording, 5_000_000L, AGENT).get(SLOW).beganAfterSamplingStopped();
                    assertEquals((stopError != null || runNotOurs) && writtenMillis < slowStartMillis, after,
                            stopError + " " + runNotOurs + " at " + writtenMillis);
                }
            }
        }
    }

    @Test
    void aWindowIsMatchedOnlyWhereItAndTheReachingOverlapByMoreThanHalf() {
        Window window = new Window(1_000, 100, VM_THREAD);
        assertSame(window, LatePauses.matching(List.of(window), 1_040, 1_140, 100));
        assertNull(LatePauses.matching(List.of(window), 1_060, 1_160, 100));
        assertNull(LatePauses.matching(List.of(window), 900, 1_200, 300), "the window is less than half the reaching");
        Window next = new Window(1_120, 50, VM_THREAD);
        assertSame(next, LatePauses.matching(List.of(window, next), 1_110, 1_180, 70), "the one that overlaps most");
    }
}
