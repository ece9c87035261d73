package dev.jvmticli.render;

import dev.jvmticli.analysis.Latency;
import dev.jvmticli.client.TraceReport;
import dev.jvmticli.client.TraceSession;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** {@code trace}'s report: per method latency, the slowest calls' stacks, the calls over the threshold by stack, the cost. */
public final class TraceView {
    private static final double[] PERCENTILES = {0.5, 0.9, 0.99, 0.999};

    private TraceView() {
    }

    /** One traced method's row: nanoseconds throughout. */
    public record MethodRow(String method, String descriptor, long calls, double callsPerSecond, long p50, long p90, long p99, long p999,
                            long max, long total, long errors) {
    }

    /** A call a traced method makes (--depth 1): the caller, the callee's row, and its share of the caller's total time. */
    public record CalleeRow(String caller, String callerDescriptor, MethodRow callee, double shareOfCaller) {
    }

    /** The traced methods' rows, the most total time first. */
    public static List<MethodRow> rows(TraceSession.Installed installed, TraceReport report) {
        List<MethodRow> rows = new ArrayList<>();
        for (int i = 0; i < report.methods().size() && i < installed.methods().size(); i++) {
            if (installed.methods().get(i).caller() < 0) {
                rows.add(row(installed, report, i));
            }
        }
        rows.sort(Comparator.comparingLong(MethodRow::total).reversed());
        return rows;
    }

    /** The callees' rows, by caller (the callers as rows orders them), each caller's the most total time first. */
    public static List<CalleeRow> calleeRows(TraceSession.Installed installed, TraceReport report) {
        List<CalleeRow> rows = new ArrayList<>();
        for (int i = 0; i < report.methods().size() && i < installed.methods().size(); i++) {
            int caller = installed.methods().get(i).caller();
            if (caller >= 0) {
                MethodRow callerRow = row(installed, report, caller);
                MethodRow callee = row(installed, report, i);
                rows.add(new CalleeRow(callerRow.method(), callerRow.descriptor(), callee,
                        callerRow.total() == 0 ? 0 : (double) callee.total() / callerRow.total()));
            }
        }
        List<String> callers = rows(installed, report).stream().map(r -> r.method() + r.descriptor()).toList();
        rows.sort(Comparator.comparingInt((CalleeRow r) -> callers.indexOf(r.caller() + r.callerDescriptor()))
                .thenComparing(Comparator.comparingLong((CalleeRow r) -> r.callee().total()).reversed()));
        return rows;
    }

    private static MethodRow row(TraceSession.Installed installed, TraceReport report, int i) {
        double seconds = Math.max(1e-9, report.durationNanos() / 1e9);
        TraceReport.MethodLatency m = report.methods().get(i);
        TraceSession.TracedMethod traced = installed.methods().get(i);
        long[] p = new long[PERCENTILES.length];
        for (int k = 0; k < p.length; k++) {
            p[k] = Latency.percentile(m.buckets(), m.minNanos(), m.maxNanos(), PERCENTILES[k]);
        }
        return new MethodRow(name(traced), traced.descriptor(), m.calls(), m.calls() / seconds, p[0], p[1], p[2], p[3], m.maxNanos(),
                m.totalNanos(), m.errors());
    }

    private static String name(TraceSession.TracedMethod m) {
        return JvmNames.className(m.classSignature()) + "." + m.name();
    }

    static String traced(TraceSession.Installed installed, int index) {
        return index >= 0 && index < installed.methods().size() ? name(installed.methods().get(index)) : "?";
    }

    static List<String> frames(TraceReport report, long[][] frames) {
        List<String> lines = new ArrayList<>();
        for (long[] frame : frames) {
            lines.add(JvmNames.frame(report.frameMethods(), frame));
        }
        return lines;
    }

    /**
     * The slow calls' stacks for a flame graph, outermost frame first, weighed in nanoseconds: the
     * calls over the threshold by stack when there is one, else the top slowest calls.
     */
    public static List<FlameGraph.Sample> flame(TraceReport report, int top) {
        List<FlameGraph.Sample> samples = new ArrayList<>();
        if (report.thresholdNanos() > 0) {
            for (TraceReport.StackGroup g : report.overThreshold()) {
                samples.add(new FlameGraph.Sample(outermostFirst(frames(report, g.frames())), g.totalNanos()));
            }
        } else {
            report.slowest().stream().sorted(Comparator.comparingLong(TraceReport.SlowCall::nanos).reversed()).limit(top)
                    .forEach(c -> samples.add(new FlameGraph.Sample(outermostFirst(frames(report, c.frames())), c.nanos())));
        }
        return samples;
    }

    private static List<String> outermostFirst(List<String> innermostFirst) {
        List<String> frames = new ArrayList<>(innermostFirst);
        java.util.Collections.reverse(frames);
        return frames;
    }

    /** How many classes came back with the bytes they were read with at the start. */
    public static long restored(List<TraceReport.ClassState> classes) {
        return classes.stream().filter(TraceReport.ClassState::putBack).count();
    }

    public static Map<String, Object> document(TraceSession.Installed installed, TraceReport report, int top) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("durationNanos", report.durationNanos());
        doc.put("percentileRelativeError", Latency.RELATIVE_ERROR);
        doc.put("methods", rows(installed, report));
        if (installed.traced() < installed.methods().size()) {
            doc.put("callees", calleeRows(installed, report));
        }
        List<Map<String, Object>> slowest = new ArrayList<>();
        report.slowest().stream().sorted(Comparator.comparingLong(TraceReport.SlowCall::nanos).reversed()).limit(top).forEach(c -> {
            Map<String, Object> call = new LinkedHashMap<>();
            call.put("method", traced(installed, c.method()));
            call.put("nanos", c.nanos());
            call.put("error", c.error());
            call.put("frames", frames(report, c.frames()));
            slowest.add(call);
        });
        doc.put("slowest", slowest);
        doc.put("thresholdNanos", report.thresholdNanos());
        List<Map<String, Object>> over = new ArrayList<>();
        report.overThreshold().stream().sorted(Comparator.comparingLong(TraceReport.StackGroup::calls).reversed()).forEach(g -> {
            Map<String, Object> group = new LinkedHashMap<>();
            group.put("method", traced(installed, g.method()));
            group.put("error", g.error());
            group.put("calls", g.calls());
            group.put("totalNanos", g.totalNanos());
            group.put("maxNanos", g.maxNanos());
            group.put("frames", frames(report, g.frames()));
            over.add(group);
        });
        doc.put("overThreshold", over);
        doc.put("droppedStacks", report.droppedStacks());
        doc.put("classes", report.classes());
        doc.put("cost", report.cost());
        if (report.restoreFailure() != null) {
            doc.put("restoreFailure", report.restoreFailure());
        }
        return doc;
    }

    public static void print(PrintWriter out, TraceSession.Installed installed, TraceReport report, int top) {
        List<MethodRow> rows = rows(installed, report);
        out.printf(Locale.ROOT, "Traced %d method(s) in %d class(es) for %s; percentiles within %.1f%% (log-linear histogram)%n%n",
                installed.traced(), installed.started().classes().size(), Sizes.seconds(report.durationNanos()) + "s",
                Latency.RELATIVE_ERROR * 100);
        Table table = new Table("METHOD", "CALLS", "CALLS/S", "P50", "P90", "P99", "P99.9", "MAX", "TOTAL", "ERRORS")
                .alignRight(1, 2, 3, 4, 5, 6, 7, 8, 9);
        for (MethodRow r : rows.subList(0, Math.min(top, rows.size()))) {
            table.add(Printable.text(r.method()), Long.toString(r.calls()), String.format(Locale.ROOT, "%.1f", r.callsPerSecond()),
                    duration(r.p50()), duration(r.p90()), duration(r.p99()), duration(r.p999()), duration(r.max()), duration(r.total()),
                    Long.toString(r.errors()));
        }
        table.print(out);
        if (rows.size() > top) {
            out.printf("(%d more method(s); --top shows more)%n", rows.size() - top);
        }
        printCallees(out, calleeRows(installed, report), rows.subList(0, Math.min(top, rows.size())), top);
        List<TraceReport.SlowCall> slowest = report.slowest().stream()
                .sorted(Comparator.comparingLong(TraceReport.SlowCall::nanos).reversed()).limit(top).toList();
        if (!slowest.isEmpty()) {
            out.printf("%nSlowest calls:%n");
            for (TraceReport.SlowCall c : slowest) {
                out.printf("  %s  %s%s%n", duration(c.nanos()), Printable.text(traced(installed, c.method())), c.error() ? "  (threw)" : "");
                printFrames(out, report, c.frames());
            }
        }
        if (report.thresholdNanos() > 0) {
            out.printf("%nCalls of %s or more, by stack:%n", duration(report.thresholdNanos()));
            if (report.overThreshold().isEmpty()) {
                out.println("  none");
            }
            report.overThreshold().stream().sorted(Comparator.comparingLong(TraceReport.StackGroup::calls).reversed()).limit(top)
                    .forEach(g -> {
                        out.printf("  %d call(s), %s in all, at most %s: %s%s%n", g.calls(), duration(g.totalNanos()), duration(g.maxNanos()),
                                Printable.text(traced(installed, g.method())), g.error() ? "  (threw)" : "");
                        printFrames(out, report, g.frames());
                    });
        }
        if (report.droppedStacks() > 0) {
            out.printf("%d stack(s) over the threshold not kept (the table was full)%n", report.droppedStacks());
        }
        if (!installed.tooLarge().isEmpty()) {
            out.printf("%nNot traced (a probe would make them longer than the JVM allows): %d method(s)%n", installed.tooLarge().size());
        }
        printCost(out, report.cost(), report.restoreFailure(), report.classes());
        out.flush();
    }

    /** The session's cost to the JVM, and whether every class came back with the bytes it had. */
    static void printCost(PrintWriter out, TraceReport.Cost cost, String restoreFailure, List<TraceReport.ClassState> classes) {
        out.printf("%nCost: metaspace %s, code cache %s (in use after the classes were put back, against before they were first read);"
                + " %s compiled method(s) deoptimized by the session%n", change(cost.metaspaceBefore(), cost.metaspaceAfter()),
                change(cost.codeCacheBefore(), cost.codeCacheAfter()), cost.deoptimized() < 0 ? "unknown" : Long.toString(cost.deoptimized()));
        out.println(restoredLine(restoreFailure, classes));
    }

    /** Whether every class came back with the bytes it had: "Classes put back: 1 of 1 with the bytes they had (SHA-256)". */
    static String restoredLine(String restoreFailure, List<TraceReport.ClassState> classes) {
        if (restoreFailure != null) {
            return "Classes NOT put back: " + Printable.text(restoreFailure);
        }
        return "Classes put back: " + restored(classes) + " of " + classes.size() + " with the bytes they had (SHA-256)";
    }

    /** For each caller shown, the calls it makes (--depth 1), --top of them, with their share of its total time. */
    private static void printCallees(PrintWriter out, List<CalleeRow> callees, List<MethodRow> callers, int top) {
        for (MethodRow caller : callers) {
            List<CalleeRow> own = callees.stream().filter(c -> c.caller().equals(caller.method()) && c.callerDescriptor().equals(caller.descriptor()))
                    .toList();
            if (own.isEmpty()) {
                continue;
            }
            out.printf("%nCalls made by %s (depth 1):%n", Printable.text(caller.method()));
            Table table = new Table("CALLEE", "CALLS", "P50", "P90", "P99", "P99.9", "MAX", "TOTAL", "OF CALLER", "ERRORS")
                    .alignRight(1, 2, 3, 4, 5, 6, 7, 8, 9);
            for (CalleeRow c : own.subList(0, Math.min(top, own.size()))) {
                MethodRow r = c.callee();
                table.add(Printable.text(r.method()), Long.toString(r.calls()), duration(r.p50()), duration(r.p90()), duration(r.p99()),
                        duration(r.p999()), duration(r.max()), duration(r.total()), String.format(Locale.ROOT, "%.1f%%", c.shareOfCaller() * 100),
                        Long.toString(r.errors()));
            }
            table.print(out);
            if (own.size() > top) {
                out.printf("(%d more callee(s); --top shows more)%n", own.size() - top);
            }
        }
    }

    private static void printFrames(PrintWriter out, TraceReport report, long[][] frames) {
        for (String frame : frames(report, frames)) {
            out.printf("      at %s%n", Printable.text(frame));
        }
    }

    private static String change(long before, long after) {
        if (before < 0 || after < 0) {
            return "unknown";
        }
        long delta = after - before;
        return (delta >= 0 ? "+" : "-") + Sizes.bytes(Math.abs(delta));
    }

    /** A duration with a unit that keeps three significant figures: 850ns, 1.06ms, 20.4ms, 1.52s. */
    static String duration(long nanos) {
        if (nanos < 1_000) {
            return nanos + "ns";
        }
        double value = nanos;
        String[] units = {"us", "ms", "s"};
        int unit = -1;
        while (unit < 2 && value >= 1_000) {
            value /= 1_000;
            unit++;
        }
        String format = value >= 100 ? "%.0f%s" : value >= 10 ? "%.1f%s" : "%.2f%s";
        return String.format(Locale.ROOT, format, value, units[unit]);
    }
}
