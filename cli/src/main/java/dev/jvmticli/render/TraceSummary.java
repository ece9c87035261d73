package dev.jvmticli.render;

import dev.jvmticli.analysis.Latency;
import dev.jvmticli.client.TraceReport;
import dev.jvmticli.client.TraceSession;
import java.io.PrintWriter;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/** summary.md's section on `dump --trace`: the traced methods over the dump, the slowest call's stack, the classes put back. */
public final class TraceSummary {
    private static final int ROWS = 10;

    /**
     * What --trace recorded over the dump: the pattern, the session's methods and report (both null
     * when it did not run; missing says why, as the agent or the CLI said it).
     */
    public record Traced(String pattern, TraceSession.Installed installed, TraceReport report, String missing) {
    }

    private TraceSummary() {
    }

    public static void print(PrintWriter out, Traced traced) {
        String pattern = DumpSummary.code(Printable.text(traced.pattern()));
        if (traced.report() == null) {
            out.println("**Trace of " + pattern + ":** " + Printable.text(traced.missing()) + ".");
            out.println();
            return;
        }
        TraceReport report = traced.report();
        List<TraceView.MethodRow> rows = TraceView.rows(traced.installed(), report);
        out.printf(Locale.ROOT, "## Traced methods (over the dump, %s s: %s, %d method(s) in %d class(es); trace/trace.txt)%n",
                Sizes.seconds(report.durationNanos()), pattern, traced.installed().traced(), traced.installed().started().classes().size());
        out.printf(Locale.ROOT, "Every call timed, from the method's entry to its exit; percentiles within %.1f%% (log-linear histogram).%n%n",
                Latency.RELATIVE_ERROR * 100);
        out.println("| method | calls | p50 | p99 | max | errors |");
        out.println("|---|---|---|---|---|---|");
        for (TraceView.MethodRow r : rows.subList(0, Math.min(ROWS, rows.size()))) {
            out.println("| " + DumpSummary.code(Printable.text(r.method())) + " | " + r.calls() + " | " + TraceView.duration(r.p50()) + " | "
                    + TraceView.duration(r.p99()) + " | " + TraceView.duration(r.max()) + " | " + r.errors() + " |");
        }
        if (rows.size() > ROWS) {
            out.println("(" + (rows.size() - ROWS) + " more method(s) in trace/trace.txt)");
        }
        Optional<TraceReport.SlowCall> slowest = report.slowest().stream().max(Comparator.comparingLong(TraceReport.SlowCall::nanos));
        if (slowest.isPresent()) {
            TraceReport.SlowCall call = slowest.get();
            out.println();
            out.println("The slowest call, " + TraceView.duration(call.nanos()) + " in " + DumpSummary.code(Printable.text(TraceView.traced(
                    traced.installed(), call.method()))) + (call.error() ? " (it threw)" : "") + ":");
            out.println("```");
            for (String frame : TraceView.frames(report, call.frames())) {
                out.println("\tat " + Printable.text(frame));
            }
            out.println("```");
        }
        if (report.thresholdNanos() > 0) {
            long over = report.overThreshold().stream().mapToLong(TraceReport.StackGroup::calls).sum();
            out.println(over + " call(s) took " + TraceView.duration(report.thresholdNanos()) + " or more (--trace-threshold); trace/trace.txt"
                    + " groups them by stack.");
        }
        out.println(TraceView.restoredLine(report.restoreFailure(), report.classes()) + ".");
        out.println();
    }
}
