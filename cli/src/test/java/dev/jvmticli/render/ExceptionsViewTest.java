package dev.jvmticli.render;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jvmticli.client.ExceptionsReport;
import dev.jvmticli.client.MethodRef;
import dev.jvmticli.client.TraceReport;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ExceptionsViewTest {
    private static final List<MethodRef> METHODS = List.of(
            new MethodRef("Lshop/Stock;", "reserve", "(I)V", false),   // 0
            new MethodRef("Lshop/Orders;", "take", "()V", false),      // 1
            new MethodRef("Lshop/Worker;", "leave", "()V", false));    // 2

    private static ExceptionsReport report(boolean events) {
        List<ExceptionsReport.ExceptionClass> classes = List.of(
                new ExceptionsReport.ExceptionClass("Ljava/lang/IllegalStateException;", 50, 0, false, List.of(),
                        events ? 50L : null, events ? 48L : null, events ? 0L : null),
                new ExceptionsReport.ExceptionClass("Lshop/Escaped;", 2, 0, false, List.of(),
                        events ? 2L : null, events ? 0L : null, events ? 2L : null));
        List<ExceptionsReport.Catch> catches = events ? List.of(
                new ExceptionsReport.Catch(0, true, 8, new long[][] {{0, 4, 12}}),
                new ExceptionsReport.Catch(1, false, 2, new long[][] {{2, 1, 30}}),
                new ExceptionsReport.Catch(0, true, 40, new long[][] {{1, 9, 20}})) : null;
        return new ExceptionsReport(1_000_000_000L, null, new TraceReport.Cost(0, 0, 0, 0, 0), List.of(), 20, 0, 0, classes, List.of(),
                METHODS, events, catches, 0, 0);
    }

    @Test
    void withTheEventsEachClassSaysThrownCaughtAndUncaughtAndWhereTheMostCaughtFirst() {
        ExceptionsReport report = report(true);
        List<ExceptionsView.CatchRow> rows = ExceptionsView.catchRows(report);
        assertEquals(List.of(new ExceptionsView.CatchRow("java.lang.IllegalStateException", true, "shop.Orders.take:20", 40),
                new ExceptionsView.CatchRow("java.lang.IllegalStateException", true, "shop.Stock.reserve:12", 8),
                new ExceptionsView.CatchRow("shop.Escaped", false, "shop.Worker.leave:30", 2)), rows);
        Map<String, Object> doc = ExceptionsView.document(report, 5, "startup");
        assertNull(doc.get("withoutThrowEvents"));
        StringWriter text = new StringWriter();
        ExceptionsView.print(new PrintWriter(text), report, 5, "startup");
        assertTrue(text.toString().contains("THROWN  CAUGHT  UNCAUGHT"), text.toString());
        assertTrue(text.toString().contains("  2  shop.Escaped  thrown at shop.Worker.leave:30"), text.toString());
        // 50 IllegalStateExceptions thrown, 48 caught: 2 whose end the window did not see
        assertTrue(text.toString().contains("\n2 thrown exception(s) neither caught nor uncaught when the window ended"), text.toString());
        assertTrue(!text.toString().contains("caught or uncaught:"), text.toString());
    }

    @Test
    void withoutThemTheReportSaysWhyOnceAndTheDocumentHasNullsNotGuesses() {
        ExceptionsReport report = report(false);
        Map<String, Object> live = ExceptionsView.document(report, 5, "attach");
        assertNull(live.get("catches"));
        assertTrue(((String) live.get("withoutThrowEvents")).contains("needs start-up mode"), live.toString());
        for (Object row : (List<?>) live.get("exceptions")) {
            ExceptionsView.ClassRow r = (ExceptionsView.ClassRow) row;
            assertTrue(r.thrown() == null && r.caught() == null && r.uncaught() == null, r.toString());
        }
        assertTrue(((String) ExceptionsView.document(report, 5, "startup").get("withoutThrowEvents")).contains("without exception-events"));
        StringWriter text = new StringWriter();
        ExceptionsView.print(new PrintWriter(text), report, 5, "attach");
        assertEquals(1, text.toString().split("caught or uncaught: needs start-up mode", -1).length - 1, text.toString());
        assertTrue(!text.toString().contains("THROWN"), text.toString());
    }
}
