package dev.jvmticli.render;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.jvmticli.client.AllocReport;
import dev.jvmticli.client.AllocReport.ClassTotal;
import dev.jvmticli.client.AllocReport.Stack;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The `alloc` report: top classes, top allocation sites, and its stacks as flame graph samples. Of
 * a live report (`alloc --live`) the same, of the survivors, with how many collections they survived.
 */
public final class AllocView {
    private AllocView() {
    }

    /** The youngest and oldest survivor of a row, in collections survived. */
    public record Ages(long youngest, long oldest) {
        static Ages of(Long youngest, Long oldest) {
            return youngest == null || oldest == null ? null : new Ages(youngest, oldest);
        }

        static Ages merge(Ages a, Ages b) {
            return a == null ? b : b == null ? a : new Ages(Math.min(a.youngest, b.youngest), Math.max(a.oldest, b.oldest));
        }

        String text() {
            return youngest == oldest ? Long.toString(youngest) : youngest + "-" + oldest;
        }
    }

    /** An allocated class with its share of the samples; ages only in a live report. */
    public record ClassRow(String className, long samples, long sampledBytes, long estimatedBytes,
                           @JsonInclude(JsonInclude.Include.NON_NULL) Ages ages) {
    }

    /**
     * Where objects of a class were allocated: the innermost frame of their stacks, and the innermost
     * frame whose class is not the JDK's (the site itself when it is application code; null when no
     * frame of the stack is known to be outside the JDK).
     */
    public record SiteRow(String site, String applicationFrame, String className, long samples, long estimatedBytes,
                          @JsonInclude(JsonInclude.Include.NON_NULL) Ages ages) {
        public SiteRow(String site, String applicationFrame, String className, long samples, long estimatedBytes) {
            this(site, applicationFrame, className, samples, estimatedBytes, null);
        }
    }

    /** A whole stack, innermost frame first, for --json. */
    public record StackRow(String className, long samples, long sampledBytes, long estimatedBytes,
                           @JsonInclude(JsonInclude.Include.NON_NULL) Ages ages, List<String> frames) {
    }

    /** The classes with samples: in a live report, those with survivors. */
    public static List<ClassRow> classes(AllocReport report) {
        return report.classes().stream()
                .filter(c -> c.samples() > 0)
                .map(c -> new ClassRow(JvmNames.className(c.name()), c.samples(), c.sampledBytes(), c.estimatedBytes(),
                        Ages.of(c.youngest(), c.oldest())))
                .sorted(Comparator.comparingLong(ClassRow::estimatedBytes).reversed().thenComparing(ClassRow::className))
                .toList();
    }

    private static String classOf(AllocReport report, Stack stack) {
        List<ClassTotal> classes = report.classes();
        return stack.classIndex() >= 0 && stack.classIndex() < classes.size()
                ? JvmNames.className(classes.get(stack.classIndex()).name()) : "?";
    }

    public static List<SiteRow> sites(AllocReport report) {
        Map<List<String>, SiteRow> merged = new LinkedHashMap<>();
        for (Stack stack : report.stacks()) {
            String site = stack.frames().length == 0 ? "(no Java frames)" : JvmNames.frame(report.methods(), stack.frames()[0]);
            SiteRow row = new SiteRow(site, JvmNames.applicationFrame(report.methods(), stack.frames()), classOf(report, stack), stack.samples(),
                    stack.estimatedBytes(), Ages.of(stack.youngest(), stack.oldest()));
            merged.merge(Arrays.asList(row.site(), row.applicationFrame(), row.className()), row,
                    (a, b) -> new SiteRow(a.site(), a.applicationFrame(), a.className(), a.samples() + b.samples(),
                            a.estimatedBytes() + b.estimatedBytes(), Ages.merge(a.ages(), b.ages())));
        }
        List<SiteRow> rows = new ArrayList<>(merged.values());
        rows.sort(Comparator.comparingLong(SiteRow::estimatedBytes).reversed().thenComparing(SiteRow::site));
        return rows;
    }

    public static List<StackRow> stacks(AllocReport report) {
        return report.stacks().stream()
                .map(s -> new StackRow(classOf(report, s), s.samples(), s.sampledBytes(), s.estimatedBytes(),
                        Ages.of(s.youngest(), s.oldest()), Arrays.stream(s.frames()).map(f -> JvmNames.frame(report.methods(), f)).toList()))
                .sorted(Comparator.comparingLong(StackRow::estimatedBytes).reversed())
                .toList();
    }

    /** Each stack outermost first, with the allocated class as its last frame, weighted by estimated bytes. */
    public static List<FlameGraph.Sample> flame(AllocReport report) {
        List<FlameGraph.Sample> samples = new ArrayList<>();
        for (Stack stack : report.stacks()) {
            List<String> frames = new ArrayList<>();
            for (int i = stack.frames().length - 1; i >= 0; i--) {
                frames.add(JvmNames.method(report.methods(), stack.frames()[i][0]));
            }
            frames.add(classOf(report, stack));
            samples.add(new FlameGraph.Sample(frames, stack.estimatedBytes()));
        }
        return samples;
    }

    /** The --json document; majorOnly: a live report on ZGC, whose ages count major collections only. */
    public static Map<String, Object> document(AllocReport report, boolean majorOnly) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("intervalBytes", report.interval());
        doc.put("durationMillis", report.durationNanos() / 1_000_000);
        doc.put("samples", report.samples());
        doc.put("sampledBytes", report.sampledBytes());
        doc.put("estimatedBytes", report.estimatedBytes());
        doc.put("droppedStacks", report.droppedStacks());
        doc.put("droppedClasses", report.droppedClasses());
        if (report.gcs() != null) {
            doc.put("gcs", report.gcs());
        }
        if (report.live() != null) {
            doc.put("live", report.live());
            if (majorOnly) {
                doc.put("agesCountMajorCollectionsOnly", true);
            }
        }
        doc.put("classes", classes(report));
        doc.put("sites", sites(report));
        doc.put("stacks", stacks(report));
        return doc;
    }

    /** The site, followed by the application frame that led to it when the site is the JDK's. */
    static String siteText(SiteRow row) {
        return JvmNames.siteWithCaller(row.site(), row.applicationFrame());
    }

    public static void print(PrintWriter out, AllocReport report, int top, boolean majorOnly) {
        out.printf("%d samples in %s s at one per %s on average: about %s allocated%n", report.samples(),
                Sizes.seconds(report.durationNanos()), Sizes.bytes(report.interval()), Sizes.bytes(report.estimatedBytes()));
        if (report.gcs() != null) {
            out.printf("GCs during the window: %d%n", report.gcs());
        }
        if (report.droppedStacks() > 0 || report.droppedClasses() > 0) {
            out.printf("(%d samples did not fit the agent's tables: counted in the totals, not in the stacks)%n",
                    report.droppedStacks() + report.droppedClasses());
        }
        AllocReport.Live live = report.live();
        long whole = live == null ? report.estimatedBytes() : live.survivors().estimatedBytes();
        if (live != null) {
            printLive(out, live);
            if (majorOnly) {
                out.println("(ZGC: its young collections do not clear weak refs, so ages count major collections only,"
                        + " and an object is known dead only after one)");
            }
        }
        if (live != null && live.survivors().samples() == 0) {
            out.flush(); // the line above says there are none: no empty tables
            return;
        }
        out.println();
        String prefix = live == null ? "Top " : "Top live ";
        Table classes = live == null ? new Table("SAMPLES", "SAMPLED", "ESTIMATED", "%", "CLASS").alignRight(0, 1, 2, 3)
                : new Table("SAMPLES", "SAMPLED", "ESTIMATED", "%", "GCS SURVIVED", "CLASS").alignRight(0, 1, 2, 3, 4);
        classes(report).stream().limit(top).forEach(c -> classes.add(withAges(live, c.ages(), 4, Long.toString(c.samples()),
                Sizes.bytes(c.sampledBytes()), Sizes.bytes(c.estimatedBytes()), Sizes.percent(c.estimatedBytes(), whole), c.className())));
        out.println(prefix + "classes:");
        classes.print(out);
        out.println();
        Table sites = live == null ? new Table("SAMPLES", "ESTIMATED", "%", "CLASS", "SITE").alignRight(0, 1, 2)
                : new Table("SAMPLES", "ESTIMATED", "%", "GCS SURVIVED", "CLASS", "SITE").alignRight(0, 1, 2, 3);
        sites(report).stream().limit(top).forEach(s -> sites.add(withAges(live, s.ages(), 3, Long.toString(s.samples()),
                Sizes.bytes(s.estimatedBytes()), Sizes.percent(s.estimatedBytes(), whole), s.className(), siteText(s))));
        out.println(prefix + "allocation sites:");
        sites.print(out);
        out.flush();
    }

    /** A row's cells; in a live report with its ages inserted at index at. */
    private static String[] withAges(AllocReport.Live live, Ages ages, int at, String... cells) {
        if (live == null) {
            return cells;
        }
        List<String> row = new ArrayList<>(Arrays.asList(cells));
        row.add(at, ages == null ? "?" : ages.text());
        return row.toArray(String[]::new);
    }

    static void printLive(PrintWriter out, AllocReport.Live live) {
        out.printf("Still alive at the end, having survived at least %d GC%s: %d samples, about %s (%d GCs seen; "
                        + "%d more samples alive but younger, about %s)%n", live.minAge(), live.minAge() == 1 ? "" : "s",
                live.survivors().samples(), Sizes.bytes(live.survivors().estimatedBytes()), live.collections(),
                live.younger().samples(), Sizes.bytes(live.younger().estimatedBytes()));
        long notFollowed = live.tooLarge() + live.tableFull() + live.overBudget() + live.noReference();
        if (notFollowed > 0) {
            String tooLarge = live.largestBytes() > 0 ? String.format("%d were larger than %s (humongous objects, which G1's young"
                    + " collections do not look at), ", live.tooLarge(), Sizes.bytes(live.largestBytes())) : "";
            out.printf("(%d samples were not followed: %s%d found the agent's table of %d full, %d would have taken it past the %s"
                            + " of sampled objects it follows at once, %d got no reference)%n",
                    notFollowed, tooLarge, live.tableFull(), live.capacity(), live.overBudget(), Sizes.bytes(live.budgetBytes()),
                    live.noReference());
        }
    }
}
