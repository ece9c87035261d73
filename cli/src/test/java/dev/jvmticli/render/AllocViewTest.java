package dev.jvmticli.render;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jvmticli.client.AllocReport;
import dev.jvmticli.client.AllocReport.ClassTotal;
import dev.jvmticli.client.AllocReport.Stack;
import dev.jvmticli.client.MethodRef;
import dev.jvmticli.render.AllocView.SiteRow;
import java.util.List;
import org.junit.jupiter.api.Test;

class AllocViewTest {
    static final List<MethodRef> METHODS = List.of(
            new MethodRef("Ljava/lang/String;", "repeat", "(I)Ljava/lang/String;", true),
            new MethodRef("Lapp/A;", "a", "()V", false),
            new MethodRef("Lapp/B;", "b", "()V", false),
            new MethodRef("Lgone/C;", "c", "()V", null));

    private static Stack stack(long samples, long[]... frames) {
        return new Stack(0, samples, samples * 10, samples * 100, frames);
    }

    private static List<SiteRow> sites(Stack... stacks) {
        return AllocView.sites(new AllocReport(512, 1, 0, 0, 0, 0, 0, List.of(new ClassTotal("[B", 0, 0, 0)), List.of(stacks), METHODS));
    }

    @Test
    void aJdkSiteIsToldApartByTheApplicationFrameThatLedToIt() {
        List<SiteRow> rows = sites(
                stack(3, new long[] {0, 1, 4435}, new long[] {1, 2, 10}),
                stack(2, new long[] {0, 1, 4435}, new long[] {2, 2, 20}, new long[] {1, 2, 11}),
                stack(1, new long[] {0, 1, 4435}, new long[] {1, 2, 10}, new long[] {2, 2, 21}));
        assertEquals(2, rows.size());
        assertEquals(new SiteRow("java.lang.String.repeat:4435", "app.A.a:10", "byte[]", 4, 400), rows.get(0));
        assertEquals("java.lang.String.repeat:4435 <- app.A.a:10", AllocView.siteText(rows.get(0)));
        assertEquals("app.B.b:20", rows.get(1).applicationFrame());
    }

    @Test
    void anApplicationSiteIsItsOwnAndAnUnknownFrameStopsTheSearch() {
        SiteRow own = sites(stack(1, new long[] {1, 0, 10})).get(0);
        assertEquals("app.A.a:10", own.applicationFrame());
        assertEquals("app.A.a:10", AllocView.siteText(own));
        SiteRow unknown = sites(stack(1, new long[] {0, 1, 4435}, new long[] {3, 0, 5}, new long[] {1, 0, 10})).get(0);
        assertNull(unknown.applicationFrame(), "a frame of unknown origin could be the application's");
        assertEquals("java.lang.String.repeat:4435", AllocView.siteText(unknown));
        assertNull(sites(stack(1, new long[] {0, 1, 4435})).get(0).applicationFrame(), "only JDK frames");
    }

    @Test
    void aLiveSiteSpansTheAgesOfItsStacksAndTheTableNamesThem() {
        List<MethodRef> methods = METHODS;
        AllocReport.Live live = new AllocReport.Live(1, 65536, 10, 512L << 10, 4, 2, 8L << 20, 3, 0, 5, 7,
                new AllocReport.Totals(5, 400, 5000), new AllocReport.Totals(1, 80, 1000));
        AllocReport report = new AllocReport(1024, 1_000_000_000L, 10, 800, 10000, 0, 0,
                List.of(new ClassTotal("Lapp/Leak;", 5, 400, 5000, 2L, 6L), new ClassTotal("Lapp/Gone;", 0, 0, 0)),
                List.of(new Stack(0, 3, 240, 3000, new long[][] {{1, 0, 10}, {2, 0, 20}}, 4L, 6L),
                        new Stack(0, 2, 160, 2000, new long[][] {{1, 0, 10}, {2, 0, 21}}, 2L, 3L)),
                methods, 9L, live);
        List<SiteRow> rows = AllocView.sites(report);
        assertEquals(1, rows.size(), "one site, two stacks");
        assertEquals(new AllocView.Ages(2, 6), rows.get(0).ages());
        assertEquals(1, AllocView.classes(report).size(), "a class without survivors is left out");
        java.io.StringWriter text = new java.io.StringWriter();
        AllocView.print(new java.io.PrintWriter(text), report, 10, false);
        String out = text.toString();
        assertTrue(out.contains("Still alive at the end, having survived at least 1 GC: 5 samples, about 4.9 KiB (7 GCs seen; "
                + "1 more samples alive but younger, about 1000 B)"), out);
        assertTrue(out.contains("(9 samples were not followed: 4 were larger than 512 KiB (humongous objects, which G1's young"
                + " collections do not look at), 2 found the agent's table of 65536 full, 3 would have taken it past"
                + " the 8 MiB of sampled objects it follows at once, 0 got no reference)"), out);
        assertTrue(out.contains("Top live classes:") && out.lines().anyMatch(l -> l.matches(".*100\\.0\\s+2-6\\s+app\\.Leak")), out);
    }

    @Test
    void aLiveReportWithoutSurvivorsSaysSoWithoutEmptyTables() {
        AllocReport.Live live = new AllocReport.Live(1, 65536, 10, 0, 0, 0, 8L << 20, 0, 0, 10, 3,
                new AllocReport.Totals(0, 0, 0), new AllocReport.Totals(0, 0, 0));
        AllocReport report = new AllocReport(1024, 1_000_000_000L, 10, 800, 10000, 0, 0,
                List.of(new ClassTotal("Lapp/Gone;", 0, 0, 0)), List.of(), METHODS, 4L, live);
        java.io.StringWriter text = new java.io.StringWriter();
        AllocView.print(new java.io.PrintWriter(text), report, 10, false);
        String out = text.toString();
        assertTrue(out.contains("having survived at least 1 GC: 0 samples"), out);
        assertFalse(out.contains("Top live"), out);
    }
}
