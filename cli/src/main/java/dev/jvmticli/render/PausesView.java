package dev.jvmticli.render;

import dev.jvmticli.analysis.Pauses;
import dev.jvmticli.analysis.Profile;
import dev.jvmticli.client.PausesReport;
import dev.jvmticli.client.PausesReport.Pause;
import java.io.PrintWriter;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
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
        for (Pause p : slow) {
            out.printf("  %s  %s reaching, then %s at it  %s%s%n", clock(p.startMillis()), millis(p.reachingNanos()),
                    atSafepoint(p), Printable.text(p.operation()),
                    p.threadsRunnable() == null ? "" : "  (" + p.threadsRunnable() + " threads running when it began)");
        }
        if (report.lateThreads() != null) {
            printLateThreads(out, report.lateThreads(), top);
        } else if (!slow.isEmpty()) {
            out.println("  Which threads arrived last is not known: the JVM's log does not say (--late-threads samples them).");
        }
        warnings(out, report);
        out.flush();
    }

    /** async-profiler's samples of the threads that ran while safepoints were being reached, the most sampled stacks first. */
    private static void printLateThreads(PrintWriter out, PausesReport.LateThreads late, int top) {
        Profile profile = Profile.parse(late.collapsed());
        out.printf("Running while the JVM was reaching its safepoints (async-profiler %s, time-to-safepoint mode, "
                + "a sample per %s of CPU; every safepoint of the window together): %d samples%n", Printable.text(late.profiler()),
                millis(late.intervalNanos()), profile.samples());
        List<Profile.Stack> stacks = profile.stacks().stream()
                .sorted(Comparator.comparingLong(Profile.Stack::samples).reversed()).limit(top).toList();
        Table table = new Table("SAMPLES", "THREAD", "STACK").alignRight(0);
        for (Profile.Stack stack : stacks) {
            List<String> names = new ArrayList<>();
            for (int i = stack.frames().size() - 1; i >= 0 && names.size() < 3; i--) {
                names.add(stack.frames().get(i).name());
            }
            table.add(Long.toString(stack.samples()), stack.thread() == null ? "-" : Printable.text(stack.thread()),
                    Printable.text(String.join(" <- ", names)));
        }
        table.print(out);
        if (late.droppedStacks() > 0) {
            out.printf("%d stacks too long to read are left out%n", late.droppedStacks());
        }
        if (late.error() != null) {
            out.println("async-profiler's stacks could not be read: " + Printable.text(late.error()));
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
            pauses.add(row);
        }
        doc.put("pauses", pauses);
        doc.put("dropped", report.dropped());
        doc.put("unreadLines", report.unreadLines());
        doc.put("logRemoved", report.logRemoved());
        doc.put("lateThreads", report.lateThreads());
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
