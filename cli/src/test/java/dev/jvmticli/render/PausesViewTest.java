package dev.jvmticli.render;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jvmticli.analysis.LatePauses;
import dev.jvmticli.analysis.Pauses;
import dev.jvmticli.client.PausesReport;
import dev.jvmticli.client.PausesReport.Pause;
import dev.jvmticli.client.TtspRecording;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PausesViewTest {
    private static final Pause YOUNG = new Pause("G1CollectForAllocation", 1_000_010L, 5_000_000_000L, 600_000_000L, 3_837L, 30_714L,
            8_787_285L, null, 8_821_836L, null, 82L, "Pause Young (Normal) (G1 Evacuation Pause) 199M->199M(256M) 8.787ms");
    private static final Pause LATE = new Pause("G1CollectFull", 1_000_900L, 5_900_000_000L, 10_000_000L, 512_345_678L, null,
            4_000_000L, 9_882L, 516_355_560L, 3L, null, null);

    private static PausesReport report(List<Pause> pauses) {
        return new PausesReport(2_000_000_000L, 1_000_000L, 1_002_000L, "file=/proc/self/fd/12", true, null, 0, 0, 0, pauses, null);
    }

    @Test
    void totalsAreTheSumTheLongestAndTheShareOfTheWindow() {
        Pauses.Totals totals = Pauses.totals(report(List.of(YOUNG, LATE)));
        assertEquals(2, totals.count());
        assertEquals(8_821_836L + 516_355_560L, totals.totalNanos());
        assertEquals(LATE, totals.longest());
        assertEquals((8_821_836L + 516_355_560L) / 2e9, totals.shareOfWall(), 1e-12);
        assertEquals(3_837L + 512_345_678L, totals.reachingNanos());
        assertEquals(List.of(LATE), Pauses.slowToReach(report(List.of(YOUNG, LATE)), 5_000_000L));
    }

    @Test
    void theCauseIsTheCollectorsLineWithoutItsFigures() {
        assertEquals("Pause Young (Normal) (G1 Evacuation Pause)", Pauses.gcCause(YOUNG));
        assertEquals("Pause Init Mark", Pauses.gcCause(new Pause("x", 0, 0, null, 0, null, 0L, null, 0, null, 1L, "Pause Init Mark 0.181ms")));
        assertEquals(null, Pauses.gcCause(LATE));
    }

    @Test
    void printsEveryPauseTheTotalsAndTheSlowOnes() {
        StringWriter text = new StringWriter();
        PausesView.print(new PrintWriter(text), report(List.of(YOUNG, LATE)), 5_000_000L, 10);
        String out = text.toString();
        assertTrue(out.contains("START"), out);
        assertTrue(out.contains("8.822 ms") && out.contains("Pause Young (Normal) (G1 Evacuation Pause)"), out);
        assertTrue(out.contains("2 pauses, 525.177 ms in all (26.26% of the wall time); longest 516.356 ms (G1CollectFull at "), out);
        assertTrue(out.contains("Slow to reach the safepoint (over 5.000 ms): 1"), out);
        assertTrue(out.contains("512.346 ms reaching, then 4.000 ms at it  G1CollectFull  (3 threads running when it began)"), out);
    }

    @Test
    void saysWhenTheJvmKeptTheOutput() {
        StringWriter text = new StringWriter();
        PausesView.print(new PrintWriter(text), new PausesReport(1, 0, 0, "file=/proc/self/fd/12", false, "no answer", 2, 0, 3, List.of(), null),
                5_000_000L, 10);
        assertTrue(text.toString().contains("0 pauses"), text.toString());
        assertTrue(text.toString().contains("Reaching the safepoint: 0.000 ms in all\n"), text.toString());
        assertTrue(text.toString().contains("The JVM kept the log output file=/proc/self/fd/12: no answer"), text.toString());
        assertTrue(text.toString().contains("2 more pauses were logged but not kept"), text.toString());
        assertTrue(text.toString().contains("3 lines of the JVM's safepoint log were not read"), text.toString());
    }

    /** JDK 11 logs no time at the safepoint: its cell says so, and a line under the table says why; nothing is made up. */
    @Test
    void aFigureTheJdkDoesNotLogIsSaidNotLogged() {
        Pause jdk11 = new Pause("G1CollectFull", 1_000_500L, 5_500_000_000L, 496_592_800L, 15_100L, null, null, null, 108_759_700L, null, 2L,
                "Pause Full (System.gc()) 9M->2M(14M) 108.532ms");
        java.io.StringWriter text = new java.io.StringWriter();
        PausesView.print(new java.io.PrintWriter(text), report(List.of(jdk11)), 5_000_000L, 5);
        String row = text.toString().lines().filter(l -> l.contains("G1CollectFull")).findFirst().orElseThrow();
        assertEquals(List.of("108.760", "ms", "0.015", "ms", "not", "logged", "G1CollectFull", "Pause", "Full", "(System.gc())"),
                List.of(row.trim().split("\\s+")).subList(1, 11), row);
        assertEquals(true, text.toString().contains("\n" + PausesView.NOT_LOGGED_NOTE + "\n"), text.toString());
        assertEquals(null, PausesView.document(report(List.of(jdk11)), 5_000_000L).get("pauses") instanceof List<?> l
                ? ((java.util.Map<?, ?>) l.get(0)).get("atSafepointNanos") : "no pauses");
    }

    /** Under each slow pause its own late threads, the most sampled first, --top of them; a quick pause names none. */
    @Test
    void eachSlowPauseNamesTheThreadsItWaitedFor() {
        PausesReport report = new PausesReport(2_000_000_000L, 1_000_000L, 1_002_000L, "file=/proc/self/fd/12", true, null, 0, 0, 0,
                List.of(YOUNG, LATE), new PausesReport.LateThreads("4.5", 1_000_000L, 50, 1234, List.of(), null, null, false, 1_002_000L, 13_959L, 13_959L, null));
        LatePauses.Late late = new LatePauses.Late(false, false, new TtspRecording.Window(0, 512_300_000L, 9), 503, 1, 12, List.of(
                new LatePauses.LateThread("late-loop", 77, 500, List.of(new LatePauses.Stack(490, List.of("PausesTarget.spin", "Thread.run")),
                        new LatePauses.Stack(10, List.of("schedule", "PausesTarget.spin")))),
                new LatePauses.LateThread("worker", 78, 2, List.of(new LatePauses.Stack(2, List.of("Worker.run")))),
                new LatePauses.LateThread("C2 CompilerThread0", 79, 1, List.of(new LatePauses.Stack(1, List.of("Compile::Optimize"))))));
        StringWriter text = new StringWriter();
        PausesView.print(new PrintWriter(text), report, 5_000_000L, 2, new PausesView.LateRead(Map.of(LATE, late), null));
        List<String> lines = text.toString().lines().toList();
        int slow = lines.indexOf(lines.stream().filter(l -> l.contains("512.346 ms reaching")).findFirst().orElseThrow());
        assertEquals("      late-loop (tid 77): 500 samples, most in PausesTarget.spin <- Thread.run", lines.get(slow + 1));
        assertEquals("      worker (tid 78): 2 samples, most in Worker.run", lines.get(slow + 2));
        assertEquals("      and 1 more thread", lines.get(slow + 3));
        assertTrue(text.toString().contains("a sample per 1.000 ms of CPU of each; the VM thread that waited, and jvmti-cli's own threads, left out"),
                text.toString());
    }

    /** An empty recording is said to be one, with its size and how the stop went, and not read as a recording of nothing. */
    @Test
    void anEmptyRecordingIsSaidWithItsSizeAndTheStop() {
        PausesReport report = new PausesReport(2_000_000_000L, 1_000_000L, 1_002_000L, "file=/proc/self/fd/12", true, null, 0, 0, 0,
                List.of(YOUNG, LATE), new PausesReport.LateThreads("4.5", 1_000_000L, 50, 0, List.of(), null, null, false, 1_000_000L, null, null, null));
        StringWriter text = new StringWriter();
        PausesView.print(new PrintWriter(text), report, 5_000_000L, 2);
        String empty = "async-profiler's recording has 0 bytes; its start and stop succeeded";
        assertTrue(text.toString().contains("\n  Which threads arrived last is not known: " + empty + "\n"), text.toString());
        assertTrue(!text.toString().contains("each with the threads"), text.toString());
        assertEquals(empty, ((Map<?, ?>) PausesView.document(report, 5_000_000L).get("lateThreads")).get("error"));
    }

    /** An empty recording says its size after async-profiler's start and stop, and a descriptor that came to name another file. */
    @Test
    void anEmptyRecordingSaysItsSizeAtEachStep() {
        PausesReport report = new PausesReport(2_000_000_000L, 1_000_000L, 1_002_000L, "file=/proc/self/fd/12", true, null, 0, 0, 0,
                List.of(YOUNG, LATE), new PausesReport.LateThreads("4.5", 1_000_000L, 50, 0, List.of(), null, null, false, 1_000_000L, 13_959L, 0L,
                        "stop"));
        String said = "async-profiler's recording has 0 bytes (13959 after async-profiler's start, 0 after its stop); after the stop the "
                + "agent's descriptor of it no longer named it (something in the target had closed the descriptor); its start and stop succeeded";
        Map<?, ?> sampling = (Map<?, ?>) PausesView.document(report, 5_000_000L).get("lateThreads");
        assertEquals(said, sampling.get("error"));
        assertEquals(13_959L, sampling.get("recordingBytesAfterStart"));
        assertEquals("stop", sampling.get("recordingReplacedAt"));
    }

    /**
     * async-profiler stopped by something else (its stop failed): said, with when it last wrote its
     * recording, and a slow pause that began after that says so instead of "no window".
     */
    @Test
    void aProfilerStoppedBySomethingElseIsSaid() {
        String said = stoppedElsewhere(new PausesReport.LateThreads("4.5", 1_000_000L, 50, 21_683, List.of("x"), null,
                "Profiler is not active", false, 1_000_200L, 13_959L, null, null));
        assertTrue(said.contains("async-profiler was no longer sampling at the end of the window: its stop failed (Profiler is not active), "
                + "so something other than this command had stopped it, by " + PausesView.clock(1_000_200L)
                + " (its recording's last write); no thread is sampled after that"), said);
    }

    /** A run of async-profiler's that was no longer the command's at the window's end: not stopped, and said so. */
    @Test
    void aProfilerRunThatIsNoLongerTheCommandsIsLeftRunningAndSaid() {
        String said = stoppedElsewhere(new PausesReport.LateThreads("4.5", 1_000_000L, 50, 21_683, List.of("x"), null, null, true, 1_000_200L, 13_959L, null, null));
        assertTrue(said.contains("async-profiler was no longer sampling at the end of the window: it no longer wrote this command's recording, "
                + "so something other than this command had stopped it, by " + PausesView.clock(1_000_200L) + " (its recording's last write); "
                + "any run async-profiler had then was not this command's, and was left running; no thread is sampled after that"), said);
    }

    private static String stoppedElsewhere(PausesReport.LateThreads sampling) {
        PausesReport report = new PausesReport(2_000_000_000L, 1_000_000L, 1_002_000L, "file=/proc/self/fd/12", true, null, 0, 0, 0,
                List.of(YOUNG, LATE), sampling);
        LatePauses.Late late = new LatePauses.Late(false, true, null, 0, 0, 0, List.of());
        StringWriter text = new StringWriter();
        PausesView.print(new PrintWriter(text), report, 5_000_000L, 2, new PausesView.LateRead(Map.of(LATE, late), null));
        List<String> lines = text.toString().lines().toList();
        int slow = lines.indexOf(lines.stream().filter(l -> l.contains("512.346 ms reaching")).findFirst().orElseThrow());
        assertEquals("      it began after async-profiler had been stopped", lines.get(slow + 1));
        return text.toString();
    }
}
