package dev.jvmticli.analysis;

import dev.jvmticli.client.ExceptionsReport;
import dev.jvmticli.client.MethodRef;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where the Throwables of an {@code exceptions} report were made. A sampled stack starts in
 * Throwable's constructor; the constructors of the Throwable's own class and of its superclasses
 * (the leading {@code <init>} frames, up to the last of its own class) are how it was made, not where.
 * Its site is the first frame after them whose class the JDK did not define (the application's), and
 * its origin the first frame after them at all (a JDK method such as Integer.parseInt when the JDK
 * made it on the application's behalf). Each class's count is exact; a site's is the class's count
 * shared out as its stacks were sampled.
 */
public final class ExceptionSites {
    private ExceptionSites() {
    }

    /** A site of one exception class: its frame (or null: every frame is the JDK's) and where it was made, as {@code [method, bci, line]}. */
    public record Site(int exception, long[] applicationFrame, long[] origin, long sampled, long estimated, long[][] stack) {
    }

    /** The index, in frames, of the first frame after the exception's constructors. */
    public static int afterConstructors(List<MethodRef> methods, long[][] frames, String exceptionSignature) {
        int end = 0;
        int lastOwn = -1;
        while (end < frames.length) {
            MethodRef m = method(methods, frames[end]);
            if (m == null || !"<init>".equals(m.name())) {
                break;
            }
            if (exceptionSignature.equals(m.classSignature())) {
                lastOwn = end;
            }
            end++;
        }
        return lastOwn >= 0 ? lastOwn + 1 : end;
    }

    /** The first frame at or after from that is the application's, or -1. */
    public static int firstApplicationFrame(List<MethodRef> methods, long[][] frames, int from) {
        for (int i = from; i < frames.length; i++) {
            MethodRef m = method(methods, frames[i]);
            if (m != null && Boolean.FALSE.equals(m.jdk())) {
                return i;
            }
        }
        return -1;
    }

    /** The sites of every class, the most made first; a class's count shared out by its sampled stacks. */
    public static List<Site> sites(ExceptionsReport report) {
        Map<String, long[]> sampledBySite = new LinkedHashMap<>();
        Map<String, Site> firstBySite = new LinkedHashMap<>();
        Map<String, ExceptionsReport.Stack> biggestStack = new LinkedHashMap<>();
        for (ExceptionsReport.Stack stack : report.stacks()) {
            if (stack.exception() < 0 || stack.exception() >= report.exceptions().size()) {
                continue;
            }
            String signature = report.exceptions().get(stack.exception()).name();
            long[][] frames = stack.frames();
            int start = afterConstructors(report.frameMethods(), frames, signature == null ? "" : signature);
            int app = firstApplicationFrame(report.frameMethods(), frames, start);
            long[] origin = start < frames.length ? frames[start] : null;
            long[] appFrame = app >= 0 ? frames[app] : null;
            String key = stack.exception() + " " + key(appFrame) + " " + key(origin);
            sampledBySite.computeIfAbsent(key, k -> new long[1])[0] += stack.count();
            firstBySite.putIfAbsent(key, new Site(stack.exception(), appFrame, origin, 0, 0, frames));
            ExceptionsReport.Stack kept = biggestStack.get(key);
            if (kept == null || stack.count() > kept.count()) {
                biggestStack.put(key, stack);
            }
        }
        List<Site> sites = new ArrayList<>();
        for (Map.Entry<String, Site> e : firstBySite.entrySet()) {
            Site s = e.getValue();
            ExceptionsReport.ExceptionClass c = report.exceptions().get(s.exception());
            long sampled = sampledBySite.get(e.getKey())[0];
            sites.add(new Site(s.exception(), s.applicationFrame(), s.origin(), sampled, estimate(c, sampled),
                    biggestStack.get(e.getKey()).frames()));
        }
        sites.sort(Comparator.comparingLong(Site::estimated).reversed());
        return sites;
    }

    /** A class's count shared out as sampled of its stacks were: the exact count when every one was sampled. */
    public static long estimate(ExceptionsReport.ExceptionClass c, long sampled) {
        return c.sampled() == 0 ? 0 : Math.round((double) c.count() * sampled / c.sampled());
    }

    private static String key(long[] frame) {
        return frame == null ? "-" : frame[0] + ":" + frame[1];
    }

    private static MethodRef method(List<MethodRef> methods, long[] frame) {
        return frame[0] >= 0 && frame[0] < methods.size() ? methods.get((int) frame[0]) : null;
    }
}
