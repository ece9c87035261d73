package dev.jvmticli.render;

import dev.jvmticli.client.ContentionReport;
import dev.jvmticli.client.ContentionReport.BlockedBefore;
import dev.jvmticli.client.MethodRef;
import dev.jvmticli.client.ParksReport;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The waits of `contention` not over at the window's end: the monitor enters and the parks still
 * waiting then (begun in the window: how long so far), and the platform threads blocked entering a
 * monitor since before the window (read at its end; when they began is not known). On a hung
 * server these are the longest waits, which the rows of the waits that ended leave out.
 */
public final class StillWaitingView {
    private StillWaitingView() {
    }

    /** One thread still waiting and its wait so far (nanoseconds). */
    public record Waiter(String thread, Long threadId, boolean virtual, long waitedNanos) {
        String label() {
            return new ContentionView.ThreadCount(thread == null ? "?" : thread, threadId, virtual, 0).label();
        }
    }

    /**
     * The waits still going on at the window's end on one monitor or blocker at one site: how many, the
     * longest and the total so far, the threads (longest first), and, for a park, the blocker's
     * owner when read then ({@code -} for none or a blocker that has none); idle for parks of
     * threads waiting for work.
     */
    public record Row(String lock, String site, boolean idle, long waits, long longestNanos, long totalNanos, List<Waiter> threads,
                      String owner) {
    }

    /** Threads blocked since before the window on one monitor, and its owner read with them. */
    public record BlockedRow(String monitor, String owner, List<String> threads) {
    }

    private record Key(String lock, String site, boolean idle, String owner) {
    }

    private record Wait(Key key, Waiter waiter) {
    }

    private static List<Row> rows(List<Wait> waits) {
        Map<Key, List<Waiter>> groups = waits.stream().collect(Collectors.groupingBy(Wait::key, LinkedHashMap::new,
                Collectors.mapping(Wait::waiter, Collectors.toList())));
        List<Row> rows = new ArrayList<>();
        groups.forEach((key, waiters) -> {
            List<Waiter> longestFirst = waiters.stream().sorted(Comparator.comparingLong(Waiter::waitedNanos).reversed()).toList();
            rows.add(new Row(key.lock(), key.site(), key.idle(), waiters.size(), longestFirst.get(0).waitedNanos(),
                    waiters.stream().mapToLong(Waiter::waitedNanos).sum(), longestFirst, key.owner()));
        });
        rows.sort(Comparator.comparing(Row::idle).thenComparing(Comparator.comparingLong(Row::longestNanos).reversed()));
        return rows;
    }

    /** The monitor enters still waiting at the window's end, by monitor and site. */
    public static List<Row> monitors(ContentionReport report) {
        Map<Integer, String> names = report.monitors().stream().collect(Collectors.toMap(ContentionReport.Monitor::id, ContentionView::monitorName));
        return rows(report.stillWaiting().stream().map(w -> new Wait(
                new Key(names.getOrDefault(w.monitor(), "?"), monitorSite(report.methods(), w.frames()), false, null),
                new Waiter(w.thread(), w.threadId(), Boolean.TRUE.equals(w.virtual()), w.waitedNanos()))).toList());
    }

    /** The parks still waiting at the window's end, by blocker, site and the blocker's owner then. */
    public static List<Row> parks(ParksReport report) {
        Map<Integer, String> names = blockerNames(report);
        return rows(report.stillWaiting().stream().map(w -> new Wait(parkKey(report, names, w.lock(), w.frames(), w.virtual(), w.owner()),
                new Waiter(w.thread(), w.threadId(), Boolean.TRUE.equals(w.virtual()), w.waitedNanos()))).toList());
    }

    /** The platform threads parked since before the window, by blocker, site and the blocker's owner at its end (no time: not known). */
    public static List<Row> parkedBefore(ParksReport report) {
        Map<Integer, String> names = blockerNames(report);
        return rows(report.parkedBefore().stream().map(w -> new Wait(parkKey(report, names, w.lock(), w.frames(), w.virtual(), w.owner()),
                new Waiter(w.thread(), w.threadId(), Boolean.TRUE.equals(w.virtual()), 0))).toList());
    }

    private static Map<Integer, String> blockerNames(ParksReport report) {
        return report.locks().stream().collect(Collectors.toMap(ParksReport.Lock::id, ParksView::blockerName));
    }

    private static Key parkKey(ParksReport report, Map<Integer, String> names, int lock, long[][] frames, Boolean virtual,
                               ParksReport.ThreadRef owner) {
        return new Key(names.getOrDefault(lock, "?"), ParksView.site(report.methods(), frames),
                ParksView.idle(report.methods(), frames, Boolean.TRUE.equals(virtual)), owner(owner));
    }

    private static String owner(ParksReport.ThreadRef owner) {
        return owner == null ? "-" : new ContentionView.ThreadCount(owner.thread() == null ? "?" : owner.thread(), owner.threadId(),
                Boolean.TRUE.equals(owner.virtual()), 0).label();
    }

    private static String monitorSite(List<MethodRef> methods, long[][] frames) {
        return frames.length == 0 ? "-" : JvmNames.siteWithCaller(JvmNames.frame(methods, frames[0]), JvmNames.applicationFrame(methods, frames));
    }

    /** The threads blocked since before the window, by monitor (the most threads first). */
    public static List<BlockedRow> blockedBefore(ContentionReport report) {
        Map<String, List<BlockedBefore>> byMonitor = report.blockedBefore().stream().collect(Collectors.groupingBy(
                b -> b.className() + "@" + Long.toHexString(b.identityHash()), LinkedHashMap::new, Collectors.toList()));
        List<BlockedRow> rows = new ArrayList<>();
        byMonitor.forEach((monitor, threads) -> rows.add(new BlockedRow(monitor, ownerOf(threads.get(0)),
                threads.stream().map(b -> new ContentionView.ThreadCount(b.thread() == null ? "?" : b.thread(), b.threadId(),
                        Boolean.TRUE.equals(b.virtual()), 0).label()).sorted().toList())));
        rows.sort(Comparator.comparingInt((BlockedRow r) -> r.threads().size()).reversed().thenComparing(BlockedRow::monitor));
        return rows;
    }

    private static String ownerOf(BlockedBefore b) {
        if (b.ownerUnknown()) {
            return "not known";
        }
        if (b.ownerId() == null) {
            return "none";
        }
        return (b.owner() == null ? "?" : b.owner()) + " #" + b.ownerId();
    }

    /** The first NAMES_IN_CELL threads with their waits so far, then how many more. */
    private static String waiters(List<Waiter> threads) {
        String shown = threads.stream().limit(ContentionView.NAMES_IN_CELL)
                .map(t -> t.label() + " (" + TraceView.duration(t.waitedNanos()) + ")").collect(Collectors.joining(", "));
        return threads.size() > ContentionView.NAMES_IN_CELL ? shown + ", and " + (threads.size() - ContentionView.NAMES_IN_CELL) + " more" : shown;
    }

    private static void printRows(PrintWriter out, List<Row> rows, int top, boolean withOwner) {
        Table table = withOwner ? new Table("WAITS", "LONGEST", "TOTAL", "BLOCKER", "OWNER AT THE END", "THREADS (waited so far)", "SITE")
                : new Table("WAITS", "LONGEST", "TOTAL", "MONITOR", "THREADS (waited so far)", "SITE");
        table.alignRight(0, 1, 2);
        rows.stream().limit(top).forEach(r -> {
            List<String> cells = new ArrayList<>(List.of(Long.toString(r.waits()), TraceView.duration(r.longestNanos()),
                    TraceView.duration(r.totalNanos()), r.lock()));
            if (withOwner) {
                cells.add(r.owner());
            }
            cells.add(waiters(r.threads()));
            cells.add(r.site());
            table.add(cells.toArray(String[]::new));
        });
        table.print(out);
    }

    /** The monitors' part, after the rows of the enters. */
    public static void printMonitors(PrintWriter out, ContentionReport report, int top) {
        List<Row> still = monitors(report);
        if (!still.isEmpty()) {
            out.println();
            out.println("Still waiting at the window's end (blocked entering in the window, not in yet; counted above, their time until the end):");
            printRows(out, still, top, false);
        }
        List<BlockedRow> before = blockedBefore(report);
        if (report.blockedBeforeNotKnown() != null) {
            out.println();
            out.println("Threads blocked since before the window: not known (" + report.blockedBeforeNotKnown() + ")");
        } else if (!before.isEmpty()) {
            out.println();
            out.println("Blocked since before the window (threads read at its end, each at one moment, with no enter in the window;"
                    + " when they began is not known):");
            Table table = new Table("THREADS", "MONITOR", "OWNER", "WAITING THREADS");
            table.alignRight(0);
            before.stream().limit(top).forEach(r -> table.add(Integer.toString(r.threads().size()), r.monitor(), r.owner(), names(r.threads())));
            table.print(out);
        }
        if (report.virtualBlockedBeforeNotKnown() != null) {
            out.println("(virtual threads blocked since before the window: not known, " + report.virtualBlockedBeforeNotKnown() + ")");
        }
        if (report.blockedBeforeDropped() > 0) {
            out.printf("(%d more threads blocked at the window's end did not fit the agent's table)%n", report.blockedBeforeDropped());
        }
        out.flush();
    }

    private static String names(List<String> threads) {
        String shown = String.join(", ", threads.subList(0, Math.min(ContentionView.NAMES_IN_CELL, threads.size())));
        return threads.size() > ContentionView.NAMES_IN_CELL ? shown + ", and " + (threads.size() - ContentionView.NAMES_IN_CELL) + " more" : shown;
    }

    /** The parks' part, after the parks that ended. */
    public static void printParks(PrintWriter out, ParksReport report, int top) {
        List<Row> still = parks(report).stream().filter(r -> !r.idle()).toList();
        long idle = parks(report).stream().filter(Row::idle).mapToLong(Row::waits).sum();
        if (!still.isEmpty()) {
            out.println();
            out.println("Parks still waiting at the window's end (begun in the window, not counted above; waited so far):");
            printRows(out, still, top, true);
        }
        if (idle > 0) {
            out.printf("(%d idle parks still waiting at the end: threads waiting for work; --json lists them)%n", idle);
        }
        if (report.stillWaitingUnread() > 0 || report.stillWaitingDropped() > 0) {
            out.printf("(%d more still waiting at the end: %d ended while they were read, %d did not fit the agent's table)%n",
                    report.stillWaitingUnread() + report.stillWaitingDropped(), report.stillWaitingUnread(), report.stillWaitingDropped());
        }
        List<Row> before = parkedBefore(report).stream().filter(r -> !r.idle()).toList();
        long idleBefore = parkedBefore(report).stream().filter(Row::idle).mapToLong(Row::waits).sum();
        if (!before.isEmpty()) {
            out.println();
            out.println("Parked since before the window (threads read at its end, each at one moment, with no park begun in the window;"
                    + " when they began is not known):");
            Table table = new Table("THREADS", "BLOCKER", "OWNER AT THE END", "WAITING THREADS", "SITE");
            table.alignRight(0);
            before.stream().limit(top).forEach(r -> table.add(Long.toString(r.waits()), r.lock(), r.owner(),
                    names(r.threads().stream().map(Waiter::label).sorted().toList()), r.site()));
            table.print(out);
        }
        if (idleBefore > 0 || report.parkedBeforeDropped() > 0) {
            out.printf("(parked since before the window and not listed: %d idle, waiting for work; %d past the agent's table)%n", idleBefore,
                    report.parkedBeforeDropped());
        }
        if (report.parkedBeforeIncomplete() != null) {
            out.println("(parked since before the window: " + report.parkedBeforeIncomplete() + ")");
        }
        if (report.untracked() > 0) {
            out.printf("(%d parks of threads past the agent's thread table were not followed)%n", report.untracked());
        }
        out.flush();
    }

    /** For --json: the rows, with each thread's wait so far when timed (not for the waits since before the window). */
    public static List<Map<String, Object>> document(List<Row> rows, boolean timed) {
        Function<Waiter, Map<String, Object>> thread = w -> {
            Map<String, Object> doc = new LinkedHashMap<>();
            doc.put("thread", w.thread());
            doc.put("threadId", w.threadId());
            doc.put("virtual", w.virtual());
            if (timed) {
                doc.put("waitedNanos", w.waitedNanos());
            }
            return doc;
        };
        return rows.stream().map(r -> {
            Map<String, Object> doc = new LinkedHashMap<>();
            doc.put("lock", r.lock());
            doc.put("site", r.site());
            if (r.owner() != null) {
                doc.put("owner", r.owner());
            }
            doc.put("idle", r.idle());
            doc.put("waits", r.waits());
            if (timed) {
                doc.put("longestNanos", r.longestNanos());
                doc.put("totalNanos", r.totalNanos());
            }
            doc.put("threads", r.threads().stream().map(thread).toList());
            return doc;
        }).toList();
    }
}
