package dev.jvmticli.render;

import dev.jvmticli.analysis.Histogram;
import dev.jvmticli.client.HeapDumpReport;
import dev.jvmticli.client.HeapReport;
import java.io.PrintWriter;
import java.util.List;

/** The `heap` command's tables: a histogram, the growth between histograms, and what each cost. */
public final class HeapView {
    private HeapView() {
    }

    public static void printHistogram(PrintWriter out, Histogram histogram, int top) {
        Table table = new Table("INSTANCES", "BYTES", "CLASS").alignRight(0, 1);
        for (Histogram.Row row : histogram.top(top)) {
            table.add(Long.toString(row.instances()), Long.toString(row.bytes()), row.className());
        }
        table.print(out);
        out.printf("%d of %d classes; %d instances, %s in all%n", Math.min(top, histogram.rows().size()), histogram.rows().size(),
                histogram.instances(), Sizes.bytes(histogram.bytes()));
        String filler = fillerLine(histogram.filler());
        if (filler != null) {
            out.println(filler);
        }
    }

    /** What the GC's fillers took, left out of the classes and totals; null when the histogram has none. */
    private static String fillerLine(Histogram.Filler filler) {
        return filler.instances() == 0 ? null : "GC fillers (dead space the GC formats, not objects; left out above): "
                + filler.instances() + (filler.instances() == 1 ? " filler, " : " fillers, ") + Sizes.bytes(filler.bytes());
    }

    /** The classes that grew most in bytes, with their instances and bytes at each histogram. */
    public static void printGrowth(PrintWriter out, List<Histogram.Growth> growth, int top) {
        int rounds = growth.isEmpty() ? 0 : growth.get(0).bytes().length;
        String[] headers = new String[rounds + 3];
        headers[0] = "BYTES+";
        headers[1] = "INSTANCES+";
        for (int i = 0; i < rounds; i++) {
            headers[i + 2] = "#" + (i + 1) + " INSTANCES/BYTES";
        }
        headers[rounds + 2] = "CLASS";
        int[] right = new int[rounds + 2];
        for (int i = 0; i < right.length; i++) {
            right[i] = i;
        }
        Table table = new Table(headers).alignRight(right);
        for (Histogram.Growth g : growth.subList(0, Math.min(top, growth.size()))) {
            String[] cells = new String[rounds + 3];
            cells[0] = signed(g.bytesGrown());
            cells[1] = signed(g.instancesGrown());
            for (int i = 0; i < rounds; i++) {
                cells[i + 2] = g.instances()[i] + "/" + g.bytes()[i];
            }
            cells[rounds + 2] = g.className();
            table.add(cells);
        }
        table.print(out);
    }

    /** summary.md's section: the classes that grew most between the first and the last histogram of a dump. */
    public static void printGrowthMarkdown(PrintWriter out, List<Histogram> histograms, int rounds, int top) {
        out.println();
        out.println("## Classes that grew most (heap histograms of rounds 1 and " + rounds + ")");
        if (histograms.size() < 2) {
            out.println("Needs two rounds or more (--count).");
            return;
        }
        out.println("All objects, garbage included (no GC was forced): a class that churns can look grown; `heap --live --count N` counts live objects only.");
        out.println();
        out.println("| bytes grown | instances grown | round 1 bytes | round " + rounds + " bytes | class |");
        out.println("|---|---|---|---|---|");
        List<Histogram.Growth> growth = Histogram.growth(histograms);
        for (Histogram.Growth g : growth.subList(0, Math.min(top, growth.size()))) {
            out.println("| " + signed(g.bytesGrown()) + " | " + signed(g.instancesGrown()) + " | " + g.bytes()[0] + " | " + g.bytes()[1]
                    + " | " + DumpSummary.code(Printable.text(g.className())) + " |");
        }
    }

    /** Whether the histogram came right after a GC pause it waited for: empty when it waited for none. */
    public static String gcWait(HeapReport report) {
        HeapReport.AfterGc wait = report.afterGc();
        if (wait == null) {
            return "";
        }
        HeapReport.Safepoints s = wait.safepoints();
        String own = s == null ? "" : String.format(java.util.Locale.ROOT, ", the target's own pauses meanwhile %d ms in %d safepoint%s",
                s.pausedMillis(), s.count(), s.count() == 1 ? "" : "s");
        return wait.gcCame() ? "right after a GC pause (waited " + Sizes.millis(wait.waitedNanos()) + " ms" + own + "); "
                : "no GC pause within " + wait.gcWaitMillis() + " ms" + own + ": garbage included; ";
    }

    /** How long the target was stopped for this histogram, as the JVM counted it. */
    public static String pause(HeapReport report) {
        return pause(report.live() ? "full GC and histogram" : "histogram, no GC", report.safepoints(), report.earlierPauseIncluded(),
                report.elapsedNanos());
    }

    /** The heap dump's lines: the file the JVM wrote, what it was checked against, and the pause. */
    public static void printDump(PrintWriter out, HeapDumpReport report) {
        out.printf("%s: %s, written by the JVM as uid %d, mode %04o (%s%s)%n", Printable.text(report.path()), Sizes.bytes(report.fileBytes()),
                report.fileUid(), report.fileMode(), report.live() ? "live objects only" : "all objects, garbage included",
                report.gzLevel() > 0 ? ", gzip level " + report.gzLevel() : ", uncompressed");
        out.printf("before it: heap %s used, %s free on the directory's file system%n", Sizes.bytes(report.heapUsedBytes()),
                Sizes.bytes(report.freeBytes()));
        out.println(pause(report.live() ? "full GC and heap dump" : "heap dump, no GC", report.safepoints(), report.earlierPauseIncluded(),
                report.elapsedNanos()));
    }

    private static String pause(String what, HeapReport.Safepoints s, boolean earlierPauseIncluded, long elapsedNanos) {
        String took = "the command took " + Sizes.millis(elapsedNanos) + " ms";
        if (s == null && earlierPauseIncluded) {
            return "pause unknown: the JVM's safepoint totals also held an earlier pause (longer than the command); " + took;
        }
        if (s == null) {
            return "pause unknown: the JVM keeps no safepoint times (it runs with -XX:-UsePerfData); " + took;
        }
        return String.format(java.util.Locale.ROOT, "%s: target paused %d ms (reaching the safepoint %d ms, at it %d ms; %d safepoint%s%s, in whole ms as the JVM counts them); %s",
                what, s.pausedMillis(), s.reachingMillis(), s.atSafepointMillis(), s.count(), s.count() == 1 ? "" : "s",
                s.count() > 1 ? ", those of any other cause meanwhile included" : "", took);
    }

    private static String signed(long value) {
        return value > 0 ? "+" + value : Long.toString(value);
    }
}
