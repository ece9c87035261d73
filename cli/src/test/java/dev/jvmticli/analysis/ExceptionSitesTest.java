package dev.jvmticli.analysis;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.jvmticli.client.ExceptionsReport;
import dev.jvmticli.client.MethodRef;
import dev.jvmticli.client.TraceReport;
import java.util.List;
import org.junit.jupiter.api.Test;

class ExceptionSitesTest {
    private static final String DECLINED = "Lshop/Declined;";
    private static final List<MethodRef> METHODS = List.of(
            new MethodRef("Ljava/lang/Throwable;", "<init>", "(Ljava/lang/String;)V", true),      // 0
            new MethodRef("Ljava/lang/Exception;", "<init>", "(Ljava/lang/String;)V", true),      // 1
            new MethodRef(DECLINED, "<init>", "(Ljava/lang/String;)V", false),                   // 2
            new MethodRef(DECLINED, "<init>", "(I)V", false),                                    // 3
            new MethodRef("Lshop/Payments;", "charge", "(I)V", false),                           // 4
            new MethodRef("Lshop/Payments;", "<init>", "()V", false),                            // 5: not the exception's
            new MethodRef("Ljava/lang/NumberFormatException;", "forInputString", "()V", true),   // 6
            new MethodRef("Ljava/lang/Integer;", "parseInt", "(Ljava/lang/String;)I", true),     // 7
            new MethodRef("Ljava/lang/NumberFormatException;", "<init>", "(Ljava/lang/String;)V", true), // 8
            new MethodRef("Ljava/lang/Thread;", "run", "()V", true));                            // 9

    private static long[] frame(int method, int line) {
        return new long[] {method, line * 10L, line};
    }

    @Test
    void theExceptionsOwnConstructorChainIsHowItWasMadeNotWhere() {
        long[][] frames = {frame(0, 1), frame(1, 2), frame(2, 3), frame(3, 4), frame(5, 5), frame(4, 6)};
        // a constructor of another class (Payments.<init>) that makes the exception is a site
        assertEquals(4, ExceptionSites.afterConstructors(METHODS, frames, DECLINED));
        assertEquals(4, ExceptionSites.firstApplicationFrame(METHODS, frames, 4));
    }

    @Test
    void aJdkMadeExceptionIsSitedAtTheApplicationFrameThatCalledTheJdk() {
        long[][] nfe = {frame(0, 1), frame(1, 2), frame(8, 3), frame(6, 4), frame(7, 5), frame(4, 6), frame(9, 7)};
        ExceptionsReport report = report(List.of(new ExceptionsReport.ExceptionClass("Ljava/lang/NumberFormatException;", 100, 10, false,
                List.of(), null, null, null)), List.of(new ExceptionsReport.Stack(0, 10, nfe)));
        ExceptionSites.Site site = ExceptionSites.sites(report).get(0);
        assertArrayEquals(frame(4, 6), site.applicationFrame());
        assertArrayEquals(frame(6, 4), site.origin());
        assertEquals(100, site.estimated());
    }

    @Test
    void aClassCountIsSharedOutByItsSampledStacksAndJdkOnlyStacksHaveNoApplicationFrame() {
        long[][] fromCharge = {frame(0, 1), frame(1, 2), frame(2, 3), frame(3, 4), frame(4, 6)};
        long[][] fromJdk = {frame(0, 1), frame(1, 2), frame(2, 3), frame(3, 4), frame(9, 7)};
        ExceptionsReport report = report(List.of(new ExceptionsReport.ExceptionClass(DECLINED, 1000, 40, false, List.of(), null, null, null)),
                List.of(new ExceptionsReport.Stack(0, 30, fromCharge), new ExceptionsReport.Stack(0, 10, fromJdk)));
        List<ExceptionSites.Site> sites = ExceptionSites.sites(report);
        assertEquals(2, sites.size());
        assertEquals(750, sites.get(0).estimated());
        assertArrayEquals(frame(4, 6), sites.get(0).applicationFrame());
        assertEquals(250, sites.get(1).estimated());
        assertNull(sites.get(1).applicationFrame());
        assertArrayEquals(frame(9, 7), sites.get(1).origin());
    }

    private static ExceptionsReport report(List<ExceptionsReport.ExceptionClass> exceptions, List<ExceptionsReport.Stack> stacks) {
        return new ExceptionsReport(1_000_000_000L, null, new TraceReport.Cost(0, 0, 0, 0, 0), List.of(), 20, 0, 0, exceptions, stacks, METHODS, false, List.of(), 0, 0);
    }
}
