package dev.jvmticli.render;

import dev.jvmticli.analysis.Pauses;
import dev.jvmticli.client.ContentionReport;
import dev.jvmticli.client.ContentionSession;
import dev.jvmticli.client.ParksReport;
import dev.jvmticli.client.PausesReport;
import dev.jvmticli.client.PausesReport.Pause;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/** summary.md's first sections: the JVM's longest pauses and the most waited-on locks over the whole dump. */
public final class WaitsSummary {
    private static final int TOP = 5;

    /**
     * What the dump recorded over its rounds: the pauses (null when not recorded, pausesMissing says
     * why), of which own were the dump's own reads; the contention, monitors and parks (null when not
     * recorded, contentionMissing says why), and who holds up the parks on blockers with no owner to
     * read, by the threads' frames after the dump; traceProbes: whether --trace put probes in (and took them out).
     */
    public record Waits(PausesReport pauses, List<Pause> own, String pausesMissing, long slowReachNanos,
                        ContentionSession.Result contention, List<ParksView.Holders> holders, String contentionMissing,
                        boolean traceProbes) {
        public Waits {
            own = List.copyOf(own);
            holders = List.copyOf(holders);
        }
    }

    private WaitsSummary() {
    }

    public static void print(PrintWriter out, Waits waits) {
        printPauses(out, waits);
        printLocks(out, waits);
        out.flush();
    }

    /** The line that says which pauses were the dump's own. */
    public static String ownPausesLine(List<Pause> own, boolean traceProbes) {
        long nanos = own.stream().mapToLong(Pause::totalNanos).sum();
        return own.size() + (own.size() == 1 ? " pause" : " pauses") + " (" + PausesView.millis(nanos)
                + ") were this dump's own: its reads (thread dumps, lock facts, histograms: those operations, logged while one"
                + " of its reads ran) and, while it recorded contention, its look-ups of who held a contended monitor"
                + " (GetObjectMonitorUsage) and its putting probes in LockSupport to record parks (RedefineClasses)"
                + (traceProbes ? "; with --trace, its putting the trace's probes in and taking them out (RedefineClasses)." : ".");
    }

    private static void printPauses(PrintWriter out, Waits waits) {
        PausesReport report = waits.pauses();
        if (report == null) {
            out.println("**The JVM's pauses:** " + Printable.text(waits.pausesMissing()) + ".");
            out.println();
            return;
        }
        List<Pause> target = report.pauses().stream().filter(p -> !waits.own().contains(p)).toList();
        long stopped = target.stream().mapToLong(Pause::totalNanos).sum();
        out.println("## Longest pauses of the JVM (over the dump, " + Sizes.seconds(report.durationNanos()) + " s: " + target.size()
                + (target.size() == 1 ? " pause, " : " pauses, ") + PausesView.millis(stopped) + " stopped, "
                + String.format(Locale.ROOT, "%.2f%%", report.durationNanos() <= 0 ? 0 : 100.0 * stopped / report.durationNanos())
                + " of the wall time; pauses/pauses.txt)");
        if (target.isEmpty()) {
            out.println("The JVM did not stop but for this dump's own reads.");
        } else {
            out.println("| start | total | reaching the safepoint | at the safepoint | operation | collector's pause (cause) |");
            out.println("|---|---|---|---|---|---|");
            for (Pause p : target.stream().sorted(Comparator.comparingLong(Pause::totalNanos).reversed()).limit(TOP).toList()) {
                String gc = Pauses.gcCause(p);
                out.println("| " + PausesView.clock(p.startMillis()) + " | " + PausesView.millis(p.totalNanos()) + " | "
                        + PausesView.millis(p.reachingNanos()) + " | " + PausesView.atSafepoint(p) + " | "
                        + DumpSummary.code(Printable.text(p.operation())) + " | " + (gc == null ? "-" : DumpSummary.code(Printable.text(gc))) + " |");
            }
            if (target.stream().anyMatch(p -> p.atSafepointNanos() == null)) {
                out.println();
                out.println(PausesView.NOT_LOGGED_NOTE);
            }
            List<Pause> slow = target.stream().filter(p -> p.reachingNanos() > waits.slowReachNanos()).toList();
            out.println();
            out.println(slow.size() + (slow.size() == 1 ? " pause" : " pauses") + " took over " + PausesView.millis(waits.slowReachNanos())
                    + " to reach the safepoint" + (slow.isEmpty() ? "." : "; the longest " + PausesView.millis(slow.stream()
                    .mapToLong(Pause::reachingNanos).max().orElse(0)) + " (which threads held it up: `pauses --late-threads` samples them)."));
        }
        if (!waits.own().isEmpty()) {
            out.println(ownPausesLine(waits.own(), waits.traceProbes()) + " Left out above; pauses/pauses.txt lists every pause.");
        }
        if (report.unreadLines() > 0) {
            out.println(report.unreadLines() + " lines of the JVM's safepoint log were in a form not read (pauses/pauses.txt).");
        }
        out.println();
    }

    /** A monitor or a java.util.concurrent lock: how long threads waited for it, who held it, who waited. */
    private record LockRow(String lock, long waitedNanos, long waits, String heldBy, String waiting) {
    }

    private static void printLocks(PrintWriter out, Waits waits) {
        if (waits.contention() == null) {
            out.println("**Lock contention over the dump:** " + Printable.text(waits.contentionMissing()) + ".");
            out.println();
            return;
        }
        ContentionReport report = waits.contention().monitors();
        ParksReport parks = waits.contention().parks();
        List<LockRow> locks = new ArrayList<>();
        for (ContentionView.MonitorRow m : ContentionView.monitors(report)) {
            locks.add(new LockRow(m.monitor(), m.blockedNanos(), m.enters(), ContentionView.counts(m.holders()), ContentionView.counts(m.threads())));
        }
        if (parks != null) {
            for (ParksView.Row r : ParksView.blockers(parks).stream().filter(r -> !r.idle()).toList()) {
                String heldBy = ParksView.owners(r) + ParksView.ownerPlace(parks, r.blocker()).map(p -> "; " + p).orElse("");
                for (ParksView.Holders h : waits.holders()) {
                    if (h.blocker().equals(r.blocker())) {
                        heldBy += "; no owner to read; after the dump, " + ParksView.holdersLine(h);
                    }
                }
                locks.add(new LockRow(r.noBlocker() ? r.blocker() + " at " + r.site() : r.blocker(), r.totalNanos(), r.waits(), heldBy, ContentionView.counts(r.waiters())));
            }
        }
        locks.sort(Comparator.comparingLong(LockRow::waitedNanos).reversed());
        out.println("## Most waited-on locks (over the dump, " + Sizes.seconds(report.durationNanos()) + " s: " + report.events()
                + " contended monitor enters" + (parks == null ? "" : ", " + parks.parks() + " parks") + "; contention/contention.txt)");
        if (locks.isEmpty()) {
            out.println("No thread waited to enter a monitor or for a java.util.concurrent lock another thread held.");
        } else {
            out.println("| lock | waited ms | waits | held by (monitor: times seen holding it while others waited; j.u.c lock: waits it owned"
                    + " the lock at the start of) | waiting threads (waits) |");
            out.println("|---|---|---|---|---|");
            for (LockRow l : locks.stream().limit(TOP).toList()) {
                out.println("| " + DumpSummary.code(Printable.text(l.lock())) + " | " + Sizes.millis(l.waitedNanos()) + " | " + l.waits()
                        + " | " + DumpSummary.code(Printable.text(l.heldBy())) + " | " + DumpSummary.code(Printable.text(l.waiting())) + " |");
            }
        }
        if (report.dropped() > 0) {
            out.println(report.dropped() + " enters did not fit the agent's tables: counted in the total only.");
        }
        if (parks != null) {
            if (parks.dropped() > 0) {
                out.println(parks.dropped() + " parks did not fit the agent's tables: counted in the total only.");
            }
            out.println("Parks were recorded with probes in " + Printable.text(parks.classes().stream()
                    .map(c -> JvmNames.className(c.name())).collect(Collectors.joining(", "))) + ". " + ParksView.restored(parks) + ".");
        } else if (waits.contention().parksUnavailable() != null) {
            out.println("Parks on java.util.concurrent locks not recorded: " + Printable.text(waits.contention().parksUnavailable()) + ".");
        }
        out.println();
    }
}
