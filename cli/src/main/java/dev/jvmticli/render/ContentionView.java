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

    /**
     * A thread and how many times (entering, or seen holding): its name, Java id (null when not
     * known) and whether it is virtual.
     */
    public record ThreadCount(String thread, Long threadId, boolean virtual, long count) {
        /** As the tables name it: a platform thread by its name, a virtual thread also by its id, as `stacks --virtual` does. */
        public String label() {
            if (!virtual) {
                return thread;
            }
            return (thread.isEmpty() ? "" : thread + " ") + "#" + threadId + " virtual";
        }
    }

    /** One thread: what ThreadCount counts per. */
    private record Who(String thread, Long threadId, boolean virtual) {
        static Who of(String thread, Long threadId, Boolean virtual) {
            return new Who(threadName(thread), threadId, Boolean.TRUE.equals(virtual));
        }
    }

    /** A contended monitor: {@code class@identityHash}. */
    public record MonitorRow(String monitor, long enters, long blockedNanos, List<ThreadCount> threads,
                             List<ThreadCount> holders) {
    }

    /**
     * Where threads blocked on a monitor (one thread each with --by-thread): the stack, innermost frame first,
     * and its innermost frame that is not the JDK's (null when none is known to be outside the JDK).
     */
    public record SiteRow(String monitor, List<ThreadCount> threads, long enters, long blockedNanos, List<String> frames,
                          String applicationFrame) {
        /** The innermost frame, followed by the application frame that led to it when it is the JDK's. */
        public String site() {
            return frames.isEmpty() ? "-" : JvmNames.siteWithCaller(frames.get(0), applicationFrame);
        }
    }

    /** Names in one table cell at most; the rest are counted. */
    static final int NAMES_IN_CELL = 5;

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
            Map<Who, Long> threads = new LinkedHashMap<>();
            report.stacks().stream().filter(s -> s.monitor() == m.id())
                    .forEach(s -> threads.merge(Who.of(s.thread(), s.threadId(), s.virtual()), s.count(), Long::sum));
            Map<Who, Long> holders = new LinkedHashMap<>();
            m.holders().forEach(h -> holders.merge(Who.of(h.thread(), h.threadId(), h.virtual()), h.seen(), Long::sum));
            rows.add(new MonitorRow(monitorName(m), m.count(), m.blockedNanos(), byCount(threads), byCount(holders)));
        }
        rows.sort(Comparator.comparingLong(MonitorRow::blockedNanos).reversed().thenComparing(Comparator.comparingLong(MonitorRow::enters).reversed()));
        return rows;
    }

    /** What the rows of "Where threads blocked" are per: a monitor and a stack, and the thread (null when grouped). */
    private record Site(int monitor, List<String> frames, Who thread) {
    }

    /** Where threads blocked: one row per monitor and stack, or per thread too when byThread. */
    public static List<SiteRow> sites(ContentionReport report, boolean byThread) {
        Map<Integer, Monitor> monitors = byId(report);
        Map<Site, List<Stack>> groups = new LinkedHashMap<>();
        for (Stack s : report.stacks()) {
            List<String> frames = Arrays.stream(s.frames()).map(f -> JvmNames.frame(report.methods(), f)).toList();
            groups.computeIfAbsent(new Site(s.monitor(), frames, byThread ? Who.of(s.thread(), s.threadId(), s.virtual()) : null), k -> new ArrayList<>()).add(s);
        }
        List<SiteRow> rows = new ArrayList<>();
        groups.forEach((site, stacks) -> {
            Map<Who, Long> threads = new LinkedHashMap<>();
            stacks.forEach(s -> threads.merge(Who.of(s.thread(), s.threadId(), s.virtual()), s.count(), Long::sum));
            rows.add(new SiteRow(monitorOf(monitors, stacks.get(0)), byCount(threads), stacks.stream().mapToLong(Stack::count).sum(),
                    stacks.stream().mapToLong(Stack::blockedNanos).sum(), site.frames(),
                    JvmNames.applicationFrame(report.methods(), stacks.get(0).frames())));
        });
        rows.sort(Comparator.comparingLong(SiteRow::blockedNanos).reversed().thenComparing(Comparator.comparingLong(SiteRow::enters).reversed()));
        return rows;
    }

    private static List<ThreadCount> byCount(Map<Who, Long> threads) {
        return threads.entrySet().stream()
                .map(e -> new ThreadCount(e.getKey().thread(), e.getKey().threadId(), e.getKey().virtual(), e.getValue()))
                .sorted(Comparator.comparingLong(ThreadCount::count).reversed().thenComparing(ThreadCount::label))
                .toList();
    }

    /** Thread, its stack outermost first, then the monitor; weighted by nanoseconds blocked (at least 1 per enter). */
    public static List<FlameGraph.Sample> flame(ContentionReport report) {
        Map<Integer, Monitor> monitors = byId(report);
        List<FlameGraph.Sample> samples = new ArrayList<>();
        for (Stack stack : report.stacks()) {
            List<String> frames = new ArrayList<>();
            Who who = Who.of(stack.thread(), stack.threadId(), stack.virtual());
            frames.add("[" + new ThreadCount(who.thread(), who.threadId(), who.virtual(), 0).label() + "]");
            for (int i = stack.frames().length - 1; i >= 0; i--) {
                frames.add(JvmNames.method(report.methods(), stack.frames()[i][0]));
            }
            frames.add(monitorOf(monitors, stack));
            samples.add(new FlameGraph.Sample(frames, Math.max(stack.blockedNanos(), stack.count())));
        }
        return samples;
    }

    public static Map<String, Object> document(ContentionReport report, boolean byThread) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("durationMillis", report.durationNanos() / 1_000_000);
        doc.put("enters", report.events());
        doc.put("dropped", report.dropped());
        doc.put("monitors", monitors(report));
        doc.put("sites", sites(report, byThread));
        doc.put("stillWaiting", StillWaitingView.document(StillWaitingView.monitors(report), true));
        if (report.blockedBeforeNotKnown() != null) {
            doc.put("blockedBeforeNotKnown", report.blockedBeforeNotKnown());
        } else {
            doc.put("blockedBefore", StillWaitingView.blockedBefore(report));
        }
        if (report.virtualBlockedBeforeNotKnown() != null) {
            doc.put("virtualBlockedBeforeNotKnown", report.virtualBlockedBeforeNotKnown());
        }
        doc.put("blockedBeforeDropped", report.blockedBeforeDropped());
        return doc;
    }

    /** The first NAMES_IN_CELL threads with their counts, then how many more. */
    static String counts(List<ThreadCount> threads) {
        if (threads.isEmpty()) {
            return "-";
        }
        String shown = threads.stream().limit(NAMES_IN_CELL).map(t -> t.label() + " (" + t.count() + ")").collect(Collectors.joining(", "));
        return threads.size() > NAMES_IN_CELL ? shown + ", and " + (threads.size() - NAMES_IN_CELL) + " more" : shown;
    }

    public static void print(PrintWriter out, ContentionReport report, int top, boolean byThread) {
        List<MonitorRow> monitors = monitors(report);
        long blocked = monitors.stream().mapToLong(MonitorRow::blockedNanos).sum();
        out.printf("%d contended monitor enters on %d monitors in %s s, %s ms blocked in total%n", report.events(),
                monitors.size(), Sizes.seconds(report.durationNanos()), Sizes.millis(blocked));
        if (report.dropped() > 0) {
            out.printf("(%d enters did not fit the agent's tables: counted in the total only)%n", report.dropped());
        }
        if (monitors.isEmpty()) {
            StillWaitingView.printMonitors(out, report, top);
            return;
        }
        out.println();
        Table table = new Table("ENTERS", "BLOCKED_MS", "MONITOR", "HELD BY (seen)", "WAITING THREADS (enters)").alignRight(0, 1);
        monitors.stream().limit(top).forEach(m -> table.add(Long.toString(m.enters()), Sizes.millis(m.blockedNanos()),
                m.monitor(), counts(m.holders()), counts(m.threads())));
        out.println("Contended monitors:");
        table.print(out);
        out.println();
        Table sites = new Table("ENTERS", "BLOCKED_MS", "MONITOR", byThread ? "THREAD" : "THREADS (enters)", "SITE").alignRight(0, 1);
        sites(report, byThread).stream().limit(top).forEach(s -> sites.add(Long.toString(s.enters()), Sizes.millis(s.blockedNanos()),
                s.monitor(), byThread ? s.threads().get(0).label() : s.threads().size() + ": " + counts(s.threads()),
                s.site()));
        out.println("Where threads blocked:");
        sites.print(out);
        StillWaitingView.printMonitors(out, report, top);
    }
}
