package dev.jvmticli.render;

import dev.jvmticli.analysis.ExceptionSites;
import dev.jvmticli.client.AgentConnector;
import dev.jvmticli.client.ExceptionsReport;
import dev.jvmticli.client.MethodRef;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** {@code exceptions}' report: Throwables per class and per second, their messages, the top sites with a stack each, the cost. */
public final class ExceptionsView {
    private ExceptionsView() {
    }

    /**
     * One class's row: its exact count and rate, its most made site (null: none sampled) and its sampled messages; thrown, caught
     * and uncaught from JVMTI's events (null when the agent could not have them).
     */
    public record ClassRow(String exception, long count, double perSecond, long sampled, String site, String origin, List<String> messages,
                           boolean nullMessages, Long thrown, Long caught, Long uncaught) {
    }

    /** Where a class's exceptions were caught in the end (caught: the catching method), or first thrown when no Java frame caught them. */
    public record CatchRow(String exception, boolean caught, String at, long count) {
    }

    /** Why a report has no caught and uncaught counts, for the agent's phase ("startup" or "attach"). */
    public static String withoutThrowEvents(String phase) {
        return "startup".equals(phase)
                ? "caught or uncaught: not counted; the agent was started without exception-events (-agentpath:...="
                        + AgentConnector.AGENT_OPTIONS + ",exception-events)"
                : "caught or uncaught: needs start-up mode (-agentpath:...=" + AgentConnector.AGENT_OPTIONS
                        + ",exception-events); a live attach cannot have JVMTI's exception events";
    }

    /** One site: the class, the application's frame (null: only JDK frames), where it was made, its estimated and sampled counts, a stack. */
    public record SiteRow(String exception, String site, String origin, long estimated, long sampled, List<String> frames) {
    }

    public static List<ClassRow> classRows(ExceptionsReport report, List<ExceptionSites.Site> sites) {
        double seconds = Math.max(1e-9, report.durationNanos() / 1e9);
        List<ClassRow> rows = new ArrayList<>();
        for (int i = 0; i < report.exceptions().size(); i++) {
            ExceptionsReport.ExceptionClass c = report.exceptions().get(i);
            int index = i;
            ExceptionSites.Site top = sites.stream().filter(s -> s.exception() == index).findFirst().orElse(null);
            rows.add(new ClassRow(JvmNames.className(c.name()), c.count(), c.count() / seconds, c.sampled(),
                    top == null ? null : frame(report, top.applicationFrame()), top == null ? null : frame(report, top.origin()), c.messages(),
                    c.nullMessages(), c.thrown(), c.caught(), c.uncaught()));
        }
        rows.sort(Comparator.comparingLong(ClassRow::count).reversed());
        return rows;
    }

    public static List<SiteRow> siteRows(ExceptionsReport report, List<ExceptionSites.Site> sites) {
        List<SiteRow> rows = new ArrayList<>();
        for (ExceptionSites.Site s : sites) {
            String signature = report.exceptions().get(s.exception()).name();
            long[][] stack = s.stack();
            int from = ExceptionSites.afterConstructors(report.frameMethods(), stack, signature == null ? "" : signature);
            List<String> frames = new ArrayList<>();
            for (int i = from; i < stack.length; i++) {
                frames.add(JvmNames.frame(report.frameMethods(), stack[i]));
            }
            rows.add(new SiteRow(JvmNames.className(signature), frame(report, s.applicationFrame()), frame(report, s.origin()), s.estimated(),
                    s.sampled(), frames));
        }
        return rows;
    }

    /** The catching (or, uncaught, throwing) methods, the most first; empty without the events. */
    public static List<CatchRow> catchRows(ExceptionsReport report) {
        List<CatchRow> rows = new ArrayList<>();
        for (ExceptionsReport.Catch c : report.catches() == null ? List.<ExceptionsReport.Catch>of() : report.catches()) {
            if (c.exception() < 0 || c.exception() >= report.exceptions().size() || c.frames().length == 0) {
                continue;
            }
            rows.add(new CatchRow(JvmNames.className(report.exceptions().get(c.exception()).name()), c.caught(),
                    frame(report, c.frames()[0]), c.count()));
        }
        rows.sort(Comparator.comparingLong(CatchRow::count).reversed());
        return rows;
    }

    private static String frame(ExceptionsReport report, long[] frame) {
        return frame == null ? null : JvmNames.frame(report.frameMethods(), frame);
    }

    public static Map<String, Object> document(ExceptionsReport report, int top, String phase) {
        List<ExceptionSites.Site> sites = ExceptionSites.sites(report);
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("durationNanos", report.durationNanos());
        doc.put("total", report.exceptions().stream().mapToLong(ExceptionsReport.ExceptionClass::count).sum() + report.unlisted());
        doc.put("stacksPerSecondPerClass", report.stacksPerSecond());
        doc.put("exceptions", classRows(report, sites));
        doc.put("sites", siteRows(report, sites).stream().limit(top).toList());
        doc.put("unlisted", report.unlisted());
        doc.put("droppedStacks", report.droppedStacks());
        doc.put("catches", report.throwEvents() ? catchRows(report) : null);
        doc.put("withoutThrowEvents", report.throwEvents() ? null : withoutThrowEvents(phase));
        if (report.throwEvents()) {
            doc.put("droppedCatches", report.droppedCatches());
            doc.put("unlistedEvents", report.unlistedEvents());
        }
        doc.put("classes", report.classes());
        doc.put("cost", report.cost());
        if (report.restoreFailure() != null) {
            doc.put("restoreFailure", report.restoreFailure());
        }
        return doc;
    }

    /**
     * Collapsed stacks (root first, ';' between frames, the Throwable's class last, then a count), one
     * line a sampled stack; the count is the class's exact count shared out by its sampled stacks.
     */
    public static void printCollapsed(PrintWriter out, ExceptionsReport report) {
        for (ExceptionsReport.Stack stack : report.stacks()) {
            if (stack.exception() < 0 || stack.exception() >= report.exceptions().size()) {
                continue;
            }
            ExceptionsReport.ExceptionClass c = report.exceptions().get(stack.exception());
            long[][] frames = stack.frames();
            int from = ExceptionSites.afterConstructors(report.frameMethods(), frames, c.name() == null ? "" : c.name());
            StringBuilder line = new StringBuilder();
            for (int i = frames.length - 1; i >= from; i--) {
                line.append(collapsedName(report.frameMethods(), frames[i])).append(';');
            }
            line.append(collapsedName(JvmNames.className(c.name()))).append(' ').append(Math.max(1, ExceptionSites.estimate(c, stack.count())));
            out.println(line);
        }
        out.flush();
    }

    private static String collapsedName(List<MethodRef> methods, long[] frame) {
        return collapsedName(JvmNames.method(methods, frame[0]));
    }

    private static String collapsedName(String name) {
        return Printable.text(name).replace(';', ':').replace(' ', '_');
    }

    public static void print(PrintWriter out, ExceptionsReport report, int top, String phase) {
        List<ExceptionSites.Site> sites = ExceptionSites.sites(report);
        List<ClassRow> rows = classRows(report, sites);
        long total = rows.stream().mapToLong(ClassRow::count).sum() + report.unlisted();
        out.printf(Locale.ROOT, "%d Throwable(s) of %d class(es) created in %ss; each counted; stacks and messages sampled, at most %d a second"
                + " for each class%n%n", total, rows.size(), Sizes.seconds(report.durationNanos()), report.stacksPerSecond());
        boolean events = report.throwEvents();
        Table table = events
                ? new Table("EXCEPTION", "COUNT", "PER SEC", "SAMPLED", "THROWN", "CAUGHT", "UNCAUGHT", "MADE AT").alignRight(1, 2, 3, 4, 5, 6)
                : new Table("EXCEPTION", "COUNT", "PER SEC", "SAMPLED", "MADE AT").alignRight(1, 2, 3);
        for (ClassRow r : rows.subList(0, Math.min(top, rows.size()))) {
            List<String> cells = new ArrayList<>(List.of(Printable.text(r.exception()), Long.toString(r.count()),
                    String.format(Locale.ROOT, "%.1f", r.perSecond()), Long.toString(r.sampled())));
            if (events) {
                cells.addAll(List.of(String.valueOf(r.thrown()), String.valueOf(r.caught()), String.valueOf(r.uncaught())));
            }
            cells.add(madeAt(r.site(), r.origin()));
            table.add(cells.toArray(String[]::new));
        }
        table.print(out);
        if (!events) {
            out.println(withoutThrowEvents(phase));
        }
        if (rows.size() > top) {
            out.printf("(%d more class(es); --top shows more)%n", rows.size() - top);
        }
        if (report.unlisted() > 0) {
            out.printf("%d more of classes past the agent's bound (counted in the total only)%n", report.unlisted());
        }
        List<ClassRow> withMessages = rows.subList(0, Math.min(top, rows.size())).stream()
                .filter(r -> !r.messages().isEmpty() || r.nullMessages()).toList();
        if (!withMessages.isEmpty()) {
            out.printf("%nMessages (sampled):%n");
            for (ClassRow r : withMessages) {
                out.printf("  %s%n", Printable.text(r.exception()));
                for (String message : r.messages()) {
                    out.printf("      \"%s\"%n", Printable.text(message));
                }
                if (r.nullMessages()) {
                    out.printf("      (no message)%n");
                }
            }
        }
        List<SiteRow> siteRows = siteRows(report, sites);
        if (!siteRows.isEmpty()) {
            out.printf("%nTop sites (counts shared out by the sampled stacks):%n");
            for (SiteRow s : siteRows.subList(0, Math.min(top, siteRows.size()))) {
                out.printf("  %d  %s  made at %s  (%d stack(s) sampled)%n", s.estimated(), Printable.text(s.exception()),
                        madeAt(s.site(), s.origin()), s.sampled());
                for (String frame : s.frames()) {
                    out.printf("      at %s%n", Printable.text(frame));
                }
            }
        }
        if (report.droppedStacks() > 0) {
            out.printf("%d sampled stack(s) not kept (the table was full)%n", report.droppedStacks());
        }
        if (events) {
            printCatches(out, catchRows(report), top);
            long unfinished = rows.stream().mapToLong(r -> r.thrown() - r.caught() - r.uncaught()).sum();
            if (unfinished > 0) {
                out.printf("%d thrown exception(s) neither caught nor uncaught when the window ended (still on their way out, or a native"
                        + " frame took them)%n", unfinished);
            }
            if (report.droppedCatches() > 0) {
                out.printf("%d catch(es) not listed by method (the table was full; counted above)%n", report.droppedCatches());
            }
            if (report.unlistedEvents() > 0) {
                out.printf("%d thrown exception(s) of classes past the agent's bound (not counted above)%n", report.unlistedEvents());
            }
        }
        TraceView.printCost(out, report.cost(), report.restoreFailure(), report.classes());
        out.flush();
    }

    private static void printCatches(PrintWriter out, List<CatchRow> rows, int top) {
        List<CatchRow> caught = rows.stream().filter(CatchRow::caught).limit(top).toList();
        List<CatchRow> uncaught = rows.stream().filter(r -> !r.caught()).limit(top).toList();
        if (!caught.isEmpty()) {
            out.printf("%nCaught in (JVMTI ExceptionCatch: the method whose handler took it last; one that threw it on does not count):%n");
            for (CatchRow r : caught) {
                out.printf("  %d  %s  caught in %s%n", r.count(), Printable.text(r.exception()), Printable.text(r.at()));
            }
        }
        if (!uncaught.isEmpty()) {
            out.printf("%nUncaught (no Java frame of its thread caught it: it ended the thread, or native code took it), by where it was"
                    + " first thrown:%n");
            for (CatchRow r : uncaught) {
                out.printf("  %d  %s  thrown at %s%n", r.count(), Printable.text(r.exception()), Printable.text(r.at()));
            }
        }
    }

    /** The application's frame, with the JDK method that made the Throwable for it; "-" when none was sampled. */
    private static String madeAt(String site, String origin) {
        if (site == null && origin == null) {
            return "-";
        }
        if (site == null) {
            return Printable.text(origin) + " (only JDK frames)";
        }
        return Printable.text(site.equals(origin) ? site : site + " via " + origin);
    }
}
