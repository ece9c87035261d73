package dev.jvmticli.render;

import dev.jvmticli.client.ContentionReport;
import dev.jvmticli.client.ContentionReport.Monitor;
import dev.jvmticli.client.ContentionReport.Stack;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/** The `contention` report: contended monitors, who waited and who held them, and where. */
public final class ContentionView {
    private ContentionView() {
    }

    /** A thread and how many times (entering, or seen holding). */
    public record ThreadCount(String thread, long count) {
    }

    /** A contended monitor: {@code class@identityHash}. */
    public record MonitorRow(String monitor, long enters, long blockedNanos, List<ThreadCount> threads,
                             List<ThreadCount> holders) {
    }

    /** Where a thread blocked on a monitor: its stack, innermost frame first. */
    public record SiteRow(String monitor, String thread, long enters, long blockedNanos, List<String> frames) {
    }

    static String monitorName(Monitor m) {
        return JvmNames.className(m.classSignature()) + "@" + Long.toHexString(m.identityHash());
    }

    private static Map<Integer, Monitor> byId(ContentionReport report) {
        return report.monitors().stream().collect(Collectors.toMap(Monitor::id, m -> m));
    }

    private static String monitorOf(Map<Integer, Monitor> monitors, Stack s) {
        Monitor m = monitors.get(s.monitor());
        return m == null ? "?" : monitorName(m);
    }

    private static String threadName(String name) {
        return name == null ? "?" : name;
    }

    public static List<MonitorRow> monitors(ContentionReport report) {
        List<MonitorRow> rows = new ArrayList<>();
        for (Monitor m : report.monitors()) {
            Map<String, Long> threads = new LinkedHashMap<>();
            report.stacks().stream().filter(s -> s.monitor() == m.id())
                    .forEach(s -> threads.merge(threadName(s.thread()), s.count(), Long::sum));
            List<ThreadCount> waiting = threads.entrySet().stream()
                    .map(e -> new ThreadCount(e.getKey(), e.getValue()))
                    .sorted(Comparator.comparingLong(ThreadCount::count).reversed().thenComparing(ThreadCount::thread))
                    .toList();
            List<ThreadCount> holders = m.holders().stream()
                    .map(h -> new ThreadCount(threadName(h.thread()), h.seen()))
                    .sorted(Comparator.comparingLong(ThreadCount::count).reversed().thenComparing(ThreadCount::thread))
                    .toList();
            rows.add(new MonitorRow(monitorName(m), m.count(), m.blockedNanos(), waiting, holders));
        }
        rows.sort(Comparator.comparingLong(MonitorRow::blockedNanos).reversed().thenComparing(Comparator.comparingLong(MonitorRow::enters).reversed()));
        return rows;
    }

    public static List<SiteRow> sites(ContentionReport report) {
        Map<Integer, Monitor> monitors = byId(report);
        return report.stacks().stream()
                .map(s -> new SiteRow(monitorOf(monitors, s), threadName(s.thread()), s.count(), s.blockedNanos(),
                        Arrays.stream(s.frames()).map(f -> JvmNames.frame(report.methods(), f)).toList()))
                .sorted(Comparator.comparingLong(SiteRow::blockedNanos).reversed().thenComparing(Comparator.comparingLong(SiteRow::enters).reversed()))
                .toList();
    }

    /** Thread, its stack outermost first, then the monitor; weighted by nanoseconds blocked (at least 1 per enter). */
    public static List<FlameGraph.Sample> flame(ContentionReport report) {
        Map<Integer, Monitor> monitors = byId(report);
        List<FlameGraph.Sample> samples = new ArrayList<>();
        for (Stack stack : report.stacks()) {
            List<String> frames = new ArrayList<>();
            frames.add("[" + threadName(stack.thread()) + "]");
            for (int i = stack.frames().length - 1; i >= 0; i--) {
                frames.add(JvmNames.method(report.methods(), stack.frames()[i][0]));
            }
            frames.add(monitorOf(monitors, stack));
            samples.add(new FlameGraph.Sample(frames, Math.max(stack.blockedNanos(), stack.count())));
        }
        return samples;
    }

    public static Map<String, Object> document(ContentionReport report) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("durationMillis", report.durationNanos() / 1_000_000);
        doc.put("enters", report.events());
        doc.put("dropped", report.dropped());
        doc.put("monitors", monitors(report));
        doc.put("sites", sites(report));
        return doc;
    }

    private static String counts(List<ThreadCount> threads) {
        return threads.isEmpty() ? "-" : threads.stream().map(t -> t.thread() + " (" + t.count() + ")").collect(Collectors.joining(", "));
    }

    public static void print(PrintWriter out, ContentionReport report, int top) {
        List<MonitorRow> monitors = monitors(report);
        long blocked = monitors.stream().mapToLong(MonitorRow::blockedNanos).sum();
        out.printf("%d contended monitor enters on %d monitors in %s s, %s ms blocked in total%n", report.events(),
                monitors.size(), Sizes.seconds(report.durationNanos()), Sizes.millis(blocked));
        if (report.dropped() > 0) {
            out.printf("(%d enters did not fit the agent's tables: counted in the total only)%n", report.dropped());
        }
        if (monitors.isEmpty()) {
            out.flush();
            return;
        }
        out.println();
        Table table = new Table("ENTERS", "BLOCKED_MS", "MONITOR", "HELD BY (seen)", "WAITING THREADS (enters)").alignRight(0, 1);
        monitors.stream().limit(top).forEach(m -> table.add(Long.toString(m.enters()), Sizes.millis(m.blockedNanos()),
                m.monitor(), counts(m.holders()), counts(m.threads())));
        out.println("Contended monitors:");
        table.print(out);
        out.println();
        Table sites = new Table("ENTERS", "BLOCKED_MS", "MONITOR", "THREAD", "SITE").alignRight(0, 1);
        sites(report).stream().limit(top).forEach(s -> sites.add(Long.toString(s.enters()), Sizes.millis(s.blockedNanos()),
                s.monitor(), s.thread(), s.frames().isEmpty() ? "-" : s.frames().get(0)));
        out.println("Where threads blocked:");
        sites.print(out);
        out.flush();
    }
}
