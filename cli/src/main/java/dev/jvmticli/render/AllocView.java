package dev.jvmticli.render;

import dev.jvmticli.client.AllocReport;
import dev.jvmticli.client.AllocReport.ClassTotal;
import dev.jvmticli.client.AllocReport.Stack;
import dev.jvmticli.client.MethodRef;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The `alloc` report: top classes, top allocation sites, and its stacks as flame graph samples. */
public final class AllocView {
    private AllocView() {
    }

    /** An allocated class with its share of the samples. */
    public record ClassRow(String className, long samples, long sampledBytes, long estimatedBytes) {
    }

    /**
     * Where objects of a class were allocated: the innermost frame of their stacks, and the innermost
     * frame whose class is not the JDK's (the site itself when it is application code; null when no
     * frame of the stack is known to be outside the JDK).
     */
    public record SiteRow(String site, String applicationFrame, String className, long samples, long estimatedBytes) {
    }

    /** A whole stack, innermost frame first, for --json. */
    public record StackRow(String className, long samples, long sampledBytes, long estimatedBytes, List<String> frames) {
    }

    public static List<ClassRow> classes(AllocReport report) {
        return report.classes().stream()
                .map(c -> new ClassRow(JvmNames.className(c.name()), c.samples(), c.sampledBytes(), c.estimatedBytes()))
                .sorted(Comparator.comparingLong(ClassRow::estimatedBytes).reversed().thenComparing(ClassRow::className))
                .toList();
    }

    private static String classOf(AllocReport report, Stack stack) {
        List<ClassTotal> classes = report.classes();
        return stack.classIndex() >= 0 && stack.classIndex() < classes.size()
                ? JvmNames.className(classes.get(stack.classIndex()).name()) : "?";
    }

    /** The innermost frame whose method the agent said is not the JDK's; null at a frame it could not tell, or none. */
    private static String applicationFrame(AllocReport report, Stack stack) {
        for (long[] frame : stack.frames()) {
            MethodRef method = frame[0] >= 0 && frame[0] < report.methods().size() ? report.methods().get((int) frame[0]) : null;
            if (method == null || method.jdk() == null) {
                return null;
            }
            if (!method.jdk()) {
                return JvmNames.frame(report.methods(), frame);
            }
        }
        return null;
    }

    public static List<SiteRow> sites(AllocReport report) {
        Map<List<String>, long[]> merged = new LinkedHashMap<>();
        for (Stack stack : report.stacks()) {
            String site = stack.frames().length == 0 ? "(no Java frames)" : JvmNames.frame(report.methods(), stack.frames()[0]);
            String application = applicationFrame(report, stack);
            long[] sums = merged.computeIfAbsent(Arrays.asList(site, application, classOf(report, stack)), k -> new long[2]);
            sums[0] += stack.samples();
            sums[1] += stack.estimatedBytes();
        }
        List<SiteRow> rows = new ArrayList<>();
        merged.forEach((key, sums) -> rows.add(new SiteRow(key.get(0), key.get(1), key.get(2), sums[0], sums[1])));
        rows.sort(Comparator.comparingLong(SiteRow::estimatedBytes).reversed().thenComparing(SiteRow::site));
        return rows;
    }

    public static List<StackRow> stacks(AllocReport report) {
        return report.stacks().stream()
                .map(s -> new StackRow(classOf(report, s), s.samples(), s.sampledBytes(), s.estimatedBytes(),
                        Arrays.stream(s.frames()).map(f -> JvmNames.frame(report.methods(), f)).toList()))
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

    /** The --json document. */
    public static Map<String, Object> document(AllocReport report) {
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
        doc.put("classes", classes(report));
        doc.put("sites", sites(report));
        doc.put("stacks", stacks(report));
        return doc;
    }

    /** The site, followed by the application frame that led to it when the site is the JDK's. */
    static String siteText(SiteRow row) {
        return row.applicationFrame() == null || row.applicationFrame().equals(row.site()) ? row.site()
                : row.site() + " <- " + row.applicationFrame();
    }

    public static void print(PrintWriter out, AllocReport report, int top) {
        out.printf("%d samples in %s s at one per %s on average: about %s allocated%n", report.samples(),
                Sizes.seconds(report.durationNanos()), Sizes.bytes(report.interval()), Sizes.bytes(report.estimatedBytes()));
        if (report.gcs() != null) {
            out.printf("GCs during the window: %d%n", report.gcs());
        }
        if (report.droppedStacks() > 0 || report.droppedClasses() > 0) {
            out.printf("(%d samples did not fit the agent's tables: counted in the totals, not in the stacks)%n",
                    report.droppedStacks() + report.droppedClasses());
        }
        out.println();
        Table classes = new Table("SAMPLES", "SAMPLED", "ESTIMATED", "%", "CLASS").alignRight(0, 1, 2, 3);
        classes(report).stream().limit(top).forEach(c -> classes.add(Long.toString(c.samples()), Sizes.bytes(c.sampledBytes()),
                Sizes.bytes(c.estimatedBytes()), Sizes.percent(c.estimatedBytes(), report.estimatedBytes()), c.className()));
        out.println("Top classes:");
        classes.print(out);
        out.println();
        Table sites = new Table("SAMPLES", "ESTIMATED", "%", "CLASS", "SITE").alignRight(0, 1, 2);
        sites(report).stream().limit(top).forEach(s -> sites.add(Long.toString(s.samples()), Sizes.bytes(s.estimatedBytes()),
                Sizes.percent(s.estimatedBytes(), report.estimatedBytes()), s.className(), siteText(s)));
        out.println("Top allocation sites:");
        sites.print(out);
        out.flush();
    }
}
