package dev.jvmticli.render;

import dev.jvmticli.analysis.LatePauses;
import dev.jvmticli.analysis.Pauses;
import dev.jvmticli.client.PausesReport;
import dev.jvmticli.client.PausesReport.Pause;
import dev.jvmticli.client.TtspRecording;
import java.io.IOException;
import java.io.PrintWriter;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The `pauses` command's output: every pause of the window, its totals, the safepoints slow to reach. */
public final class PausesView {
    static final String NOT_LOGGED = "not logged";
    static final String NOT_LOGGED_NOTE = "(not logged: this JDK, 11, logs the time to reach the safepoint and the total, not the time at it)";
    private static final DateTimeFormatter CLOCK = DateTimeFormatter.ofPattern("HH:mm:ss.SSS").withZone(ZoneId.systemDefault());

    private PausesView() {
    }

    public static void print(PrintWriter out, PausesReport report, long slowNanos, int top) {
        print(out, report, slowNanos, top, report.lateThreads() == null ? null : late(report, slowNanos));
    }

    /** With the late threads of each slow pause already read (null: not asked for). */
    static void print(PrintWriter out, PausesReport report, long slowNanos, int top, LateRead late) {
        out.printf("Stop-the-world pauses from %s to %s (%s), as the JVM's safepoint log (-Xlog:safepoint, -Xlog:gc) says:%n",
                clock(report.startedMillis()), clock(report.stoppedMillis()), seconds(report.durationNanos()));
        Table table = new Table("START", "TOTAL", "REACHING", "AT-SAFEPOINT", "OPERATION", "GC").alignRight(1, 2, 3);
        for (Pause p : report.pauses()) {
            String gc = Pauses.gcCause(p);
            table.add(clock(p.startMillis()), millis(p.totalNanos()), millis(p.reachingNanos()), atSafepoint(p),
                    Printable.text(p.operation()), gc == null ? "" : Printable.text(gc));
        }
        table.print(out);
        if (report.pauses().stream().anyMatch(p -> p.atSafepointNanos() == null)) {
            out.println(NOT_LOGGED_NOTE);
        }
        Pauses.Totals totals = Pauses.totals(report);
        out.printf("%d %s, %s in all (%s of the wall time)", totals.count(), totals.count() == 1 ? "pause" : "pauses",
                millis(totals.totalNanos()), percent(totals.shareOfWall()));
        if (totals.longest() != null) {
            out.printf("; longest %s (%s at %s)", millis(totals.longest().totalNanos()), Printable.text(totals.longest().operation()),
                    clock(totals.longest().startMillis()));
        }
        out.println();
        out.printf("Reaching the safepoint: %s in all", millis(totals.reachingNanos()));
        if (totals.longestReaching() != null) {
            out.printf("; longest %s (%s at %s)", millis(totals.longestReaching().reachingNanos()),
                    Printable.text(totals.longestReaching().operation()), clock(totals.longestReaching().startMillis()));
        }
        out.println();
        List<Pause> slow = Pauses.slowToReach(report, slowNanos);
        out.printf("Slow to reach the safepoint (over %s): %d%n", millis(slowNanos), slow.size());
        if (late != null && late.byPause() != null && !slow.isEmpty()) {
            out.printf("  each with the threads running while it was reached (async-profiler %s, time-to-safepoint mode, a sample per %s of CPU "
                    + "of each; the VM thread that waited, and jvmti-cli's own threads, left out):%n",
                    Printable.text(report.lateThreads().profiler()), millis(report.lateThreads().intervalNanos()));
        }
        for (Pause p : slow) {
            out.printf("  %s  %s reaching, then %s at it  %s%s%n", clock(p.startMillis()), millis(p.reachingNanos()),
                    atSafepoint(p), Printable.text(p.operation()),
                    p.threadsRunnable() == null ? "" : "  (" + p.threadsRunnable() + " threads running when it began)");
            if (late != null && late.byPause() != null) {
                printLateThreads(out, late.byPause().get(p), top);
            }
        }
        if (late != null && late.error() != null && !slow.isEmpty()) {
            out.println("  Which threads arrived last is not known: " + Printable.text(late.error()));
        } else if (late == null && !slow.isEmpty()) {
            out.println("  Which threads arrived last is not known: the JVM's log does not say (--late-threads samples them).");
        }
        if (report.lateThreads() != null && report.lateThreads().stoppedElsewhere()) {
            out.println(stoppedElsewhere(report.lateThreads()));
        }
        warnings(out, report);
        out.flush();
    }

    /** The late threads of each slow pause, or why async-profiler's recording could not be read. */
    record LateRead(Map<Pause, LatePauses.Late> byPause, String error) {
    }

    private static LateRead late(PausesReport report, long slowNanos) {
        PausesReport.LateThreads late = report.lateThreads();
        if (late.recordingError() != null) {
            return new LateRead(null, "async-profiler's recording (" + sizes(late) + ") could not be read: " + late.recordingError());
        }
        if (late.recording().isEmpty()) {
            return new LateRead(null, "async-profiler's recording has " + sizes(late) + "; "
                    + (late.runNotOurs() ? "something else had stopped it, and this command did not"
                            : late.stopError() == null ? "its start and stop succeeded" : "its stop failed: " + late.stopError()));
        }
        try {
            TtspRecording.Recording recording = TtspRecording.read(late.recording());
            return new LateRead(LatePauses.of(report, recording, slowNanos, late.agentTid()), null);
        } catch (IOException | RuntimeException e) {
            return new LateRead(null, "async-profiler's recording (" + sizes(late) + ") could not be read: " + e.getMessage());
        }
    }

    /**
     * The recording's size as read, and as the agent saw it after async-profiler's start and stop
     * (each when known), and whether the agent's descriptor of it came to name no file or another: where
     * an empty or unreadable recording's bytes went.
     */
    private static String sizes(PausesReport.LateThreads late) {
        StringBuilder said = new StringBuilder(late.recordingBytes() + " bytes");
        List<String> steps = new ArrayList<>();
        if (late.recordingBytesAfterStart() != null) {
            steps.add(late.recordingBytesAfterStart() + " after async-profiler's start");
        }
        if (late.recordingBytesAfterStop() != null) {
            steps.add(late.recordingBytesAfterStop() + " after its stop");
        }
        if (!steps.isEmpty()) {
            said.append(" (").append(String.join(", ", steps)).append(')');
        }
        if (late.recordingReplacedAt() != null) {
            said.append("; after the ").append(Printable.text(late.recordingReplacedAt()))
                    .append(" the agent's descriptor of it no longer named it (something in the target had closed the descriptor)");
        }
        return said.toString();
    }

    /**
     * Something other than this command had stopped async-profiler (its stop failed, or its run was
     * no longer this command's and was left alone), when it last wrote its recording.
     */
    private static String stoppedElsewhere(PausesReport.LateThreads late) {
        return "async-profiler was no longer sampling at the end of the window: "
                + (late.runNotOurs() ? "it no longer wrote this command's recording" : "its stop failed (" + Printable.text(late.stopError()) + ")")
                + ", so something other than this command had stopped it"
                + (late.recordingWrittenMillis() == null ? "" : ", by " + clock(late.recordingWrittenMillis()) + " (its recording's last write)")
                + (late.runNotOurs() ? "; any run async-profiler had then was not this command's, and was left running" : "")
                + "; no thread is sampled after that";
    }

    /** The threads a slow pause waited for, the most sampled first (top of them), each with its most sampled stack. */
    private static void printLateThreads(PrintWriter out, LatePauses.Late late, int top) {
        if (late.window() == null) {
            out.println(late.beganBeforeSampling() ? "      it began before async-profiler's sampling did"
                    : late.beganAfterSamplingStopped() ? "      it began after async-profiler had been stopped"
                    : "      async-profiler recorded no window of waiting that matches this one");
            return;
        }
        if (late.threads().isEmpty()) {
            out.println("      no thread of the target's was sampled running while it was reached");
            return;
        }
        for (LatePauses.LateThread thread : late.threads().stream().limit(top).toList()) {
            List<String> frames = thread.stacks().get(0).frames();
            out.printf("      %s (tid %d): %d %s, most in %s%n", thread.name() == null ? "-" : Printable.text(thread.name()), thread.osThreadId(),
                    thread.samples(), thread.samples() == 1 ? "sample" : "samples",
                    Printable.text(String.join(" <- ", frames.subList(0, Math.min(3, frames.size())))));
        }
        if (late.threads().size() > top) {
            int more = late.threads().size() - top;
            out.printf("      and %d more %s%n", more, more == 1 ? "thread" : "threads");
        }
    }

    private static void warnings(PrintWriter out, PausesReport report) {
        if (report.dropped() > 0) {
            out.printf("%d more pauses were logged but not kept (the agent keeps at most 50,000 per session)%n", report.dropped());
        }
        if (report.cutLines() > 0) {
            out.printf("%d log lines were too long to read and are left out%n", report.cutLines());
        }
        if (report.unreadLines() > 0) {
            out.printf("%d lines of the JVM's safepoint log were not read and are left out (in a form this version does not read,"
                    + " or, on JDK 11, the end of a safepoint that began before the window: its operation was logged before it)%n",
                    report.unreadLines());
        }
        if (!report.logRemoved()) {
            out.printf("The JVM kept the log output %s: %s (it now fails to write to it; `jcmd <pid> VM.log list` shows it)%n",
                    Printable.text(report.logOutput()), Printable.text(report.logRemoveError()));
        }
    }

    /** The --json document: the window, the totals and every pause with its start. */
    public static Map<String, Object> document(PausesReport report, long slowNanos) {
        Pauses.Totals totals = Pauses.totals(report);
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("startedMillis", report.startedMillis());
        doc.put("stoppedMillis", report.stoppedMillis());
        doc.put("durationNanos", report.durationNanos());
        doc.put("count", totals.count());
        doc.put("totalNanos", totals.totalNanos());
        doc.put("longestNanos", totals.longest() == null ? 0 : totals.longest().totalNanos());
        doc.put("shareOfWall", totals.shareOfWall());
        doc.put("reachingNanos", totals.reachingNanos());
        doc.put("longestReachingNanos", totals.longestReaching() == null ? 0 : totals.longestReaching().reachingNanos());
        doc.put("slowToReachOverNanos", slowNanos);
        doc.put("slowToReach", Pauses.slowToReach(report, slowNanos).size());
        LateRead late = report.lateThreads() == null ? null : late(report, slowNanos);
        List<Map<String, Object>> pauses = new ArrayList<>();
        for (Pause p : report.pauses()) {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("startMillis", p.startMillis());
            row.put("endMillis", p.endMillis());
            row.put("endUptimeNanos", p.endUptimeNanos());
            row.put("operation", p.operation());
            row.put("gcId", p.gcId());
            row.put("gc", p.gc());
            row.put("sinceLastNanos", p.sinceLastNanos());
            row.put("reachingNanos", p.reachingNanos());
            row.put("cleanupNanos", p.cleanupNanos());
            row.put("atSafepointNanos", p.atSafepointNanos());
            row.put("leavingNanos", p.leavingNanos());
            row.put("totalNanos", p.totalNanos());
            row.put("threadsRunnable", p.threadsRunnable());
            if (late != null && late.byPause() != null && late.byPause().containsKey(p)) {
                row.put("lateThreads", lateDocument(late.byPause().get(p)));
            }
            pauses.add(row);
        }
        doc.put("pauses", pauses);
        doc.put("dropped", report.dropped());
        doc.put("unreadLines", report.unreadLines());
        doc.put("logRemoved", report.logRemoved());
        if (late != null) {
            Map<String, Object> sampling = new LinkedHashMap<>();
            sampling.put("profiler", report.lateThreads().profiler());
            sampling.put("intervalNanos", report.lateThreads().intervalNanos());
            sampling.put("recordingBytes", report.lateThreads().recordingBytes());
            sampling.put("recordingWrittenMillis", report.lateThreads().recordingWrittenMillis());
            sampling.put("recordingBytesAfterStart", report.lateThreads().recordingBytesAfterStart());
            sampling.put("recordingBytesAfterStop", report.lateThreads().recordingBytesAfterStop());
            sampling.put("recordingReplacedAt", report.lateThreads().recordingReplacedAt());
            sampling.put("stopError", report.lateThreads().stopError());
            sampling.put("runNotOurs", report.lateThreads().runNotOurs());
            sampling.put("error", late.error());
            doc.put("lateThreads", sampling);
        }
        return doc;
    }

    /** A slow pause's late threads: async-profiler's window (null when none matched) and each thread's samples and stacks. */
    private static Map<String, Object> lateDocument(LatePauses.Late late) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("beganBeforeSampling", late.beganBeforeSampling());
        doc.put("beganAfterSamplingStopped", late.beganAfterSamplingStopped());
        doc.put("windowStartNanos", late.window() == null ? null : late.window().startNanos());
        doc.put("windowNanos", late.window() == null ? null : late.window().durationNanos());
        doc.put("samples", late.samples());
        doc.put("ownSamples", late.ownSamples());
        doc.put("vmThreadSamples", late.vmThreadSamples());
        List<Map<String, Object>> threads = new ArrayList<>();
        for (LatePauses.LateThread thread : late.threads()) {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("thread", thread.name());
            row.put("osThreadId", thread.osThreadId());
            row.put("samples", thread.samples());
            row.put("stacks", thread.stacks());
            threads.add(row);
        }
        doc.put("threads", threads);
        return doc;
    }

    /** The time at the safepoint, or what says that the JDK does not log it. */
    static String atSafepoint(Pause p) {
        return p.atSafepointNanos() == null ? NOT_LOGGED : millis(p.atSafepointNanos());
    }

    static String clock(long epochMillis) {
        return CLOCK.format(Instant.ofEpochMilli(epochMillis));
    }

    static String millis(long nanos) {
        return String.format(Locale.ROOT, "%.3f ms", nanos / 1e6);
    }

    private static String seconds(long nanos) {
        return String.format(Locale.ROOT, "%.1f s", nanos / 1e9);
    }

    private static String percent(double share) {
        return String.format(Locale.ROOT, "%.2f%%", share * 100);
    }
}
