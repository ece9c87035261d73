package dev.jvmticli.render;

import dev.jvmticli.analysis.NativeAllocations;
import dev.jvmticli.analysis.NmtDiff;
import dev.jvmticli.client.NativeMemReport;
import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.Map;

/** `memory --native`: the window's allocation sites with what was freed, then NMT's change since its baseline. */
public final class NativeMemoryView {
    private NativeMemoryView() {
    }

    public static void print(PrintWriter out, NativeMemReport report, NativeAllocations.Result calls, NmtDiff.Diff nmt, int top) {
        NativeAllocations.Totals t = calls.totals();
        out.println(t.allocations() + " allocations in " + Sizes.seconds(report.durationNanos()) + " s (malloc, calloc, realloc, posix_memalign, aligned_alloc: async-profiler "
                + report.profiler() + "): " + Sizes.bytes(t.allocatedBytes()) + "; freed in the window: " + Sizes.bytes(t.freedBytes())
                + " (" + t.frees() + "); not freed at the end: " + Sizes.bytes(t.heldBytes()) + " (" + t.held() + ")");
        out.println("(" + t.earlierFrees() + " frees of memory allocated before the window, not sized; the tool's own "
                + t.ownAllocations() + " allocations, " + Sizes.bytes(t.ownBytes()) + ", left out)");
        if (report.recordingCappedAfterNanos() != null) {
            out.println("(the recording reached its bound of " + Sizes.bytes(report.maxRecordingBytes()) + " after "
                    + Sizes.seconds(report.recordingCappedAfterNanos()) + " s and async-profiler was stopped then: the sites are of that part of the window;"
                    + " the arenas and native memory tracking of all of it; --max-recording)");
        }
        if (report.skippedAllocations() != null && report.skippedAllocations() > 0) {
            out.println("(async-profiler dropped " + report.skippedAllocations() + " allocations, its buffers all locked at the time; "
                    + "frees it drops so are not counted, and their blocks show as not freed)");
        }
        out.println();
        out.println("Native allocation sites, most not freed first:");
        Table sites = new Table("NOT FREED", "CALLS", "ALLOCATED", "CALLS", "FREED", "SITE").alignRight(0, 1, 2, 3, 4);
        calls.sites().stream().limit(top).forEach(s -> sites.add(Sizes.bytes(s.heldBytes()), Long.toString(s.held()),
                Sizes.bytes(s.allocatedBytes()), Long.toString(s.allocations()), Sizes.bytes(s.freedBytes()),
                s.site() + " via " + s.via()));
        sites.print(out);
        out.println();
        printArenas(out, report);
        if (nmt == null) {
            String text = report.nativeMemoryDiff() != null ? report.nativeMemoryDiff() : report.nativeMemoryTrackingError();
            out.println(text == null || text.contains("not enabled")
                    ? "native memory tracking is off: start the JVM with -XX:NativeMemoryTracking=summary to see its change here"
                    : "native memory tracking's diff could not be read: " + text.strip().lines().findFirst().orElse(""));
        } else {
            out.println("Native memory tracking, committed and its change since the baseline taken at the window's start:");
            Table categories = new Table("COMMITTED", "CHANGE", "MALLOC CHANGE", "CATEGORY").alignRight(0, 1, 2);
            categories.add(Sizes.bytes(nmt.total().committedBytes()), signed(nmt.total().committedChangeBytes()), "", "Total");
            for (NmtDiff.Category c : nmt.categories()) {
                if (c.committedChangeBytes() != 0 || c.mallocChangeBytes() != 0) {
                    categories.add(Sizes.bytes(c.committedBytes()), signed(c.committedChangeBytes()),
                            signed(c.mallocChangeBytes()) + " (" + (c.mallocCountChange() >= 0 ? "+" : "") + c.mallocCountChange() + ")", c.name());
                }
            }
            categories.print(out);
        }
        out.flush();
    }

    /** glibc's arenas at the window's start and end, resident, as the process's mappings show them. */
    private static void printArenas(PrintWriter out, NativeMemReport report) {
        NativeMemReport.Arenas start = report.arenasAtStart(), end = report.arenasAtEnd();
        if (start == null || end == null) {
            out.println("glibc's malloc arenas could not be read: " + report.arenasError());
            out.println();
            return;
        }
        out.println("glibc's malloc arenas, resident (/proc/<pid>/smaps; blocks malloc maps on their own, 128 KiB and up by default, are in none):");
        Table arenas = new Table("RESIDENT", "CHANGE", "MAPPED", "ARENAS").alignRight(0, 1, 2);
        arenas.add(Sizes.bytes(end.resident()), signed(end.resident() - start.resident()), Sizes.bytes(end.mainBytes() + end.heapBytes()), "all");
        arenas.add(Sizes.bytes(end.mainResident()), signed(end.mainResident() - start.mainResident()), Sizes.bytes(end.mainBytes()),
                end.mainFound() ? "main arena (the break: [heap])" : "main arena (no [heap]: the break never moved)");
        arenas.add(Sizes.bytes(end.heapResident()), signed(end.heapResident() - start.heapResident()), Sizes.bytes(end.heapBytes()),
                end.arenas() + " other arena" + (end.arenas() == 1 ? "" : "s") + " (threads'), in " + end.heaps() + " heap" + (end.heaps() == 1 ? "" : "s"));
        arenas.print(out);
        out.println();
    }

    private static String signed(long bytes) {
        return (bytes > 0 ? "+" : "") + Sizes.bytes(bytes);
    }

    public static Map<String, Object> document(NativeMemReport report, NativeAllocations.Result calls, NmtDiff.Diff nmt) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("durationNanos", report.durationNanos());
        doc.put("profiler", report.profiler());
        doc.put("totals", calls.totals());
        doc.put("skippedAllocations", report.skippedAllocations());
        doc.put("sites", calls.sites());
        doc.put("nativeMemoryTracking", nmt);
        doc.put("nativeMemoryDiff", report.nativeMemoryDiff());
        doc.put("nativeMemoryTrackingError", report.nativeMemoryTrackingError());
        doc.put("recordingBytes", report.recordingBytes());
        doc.put("maxRecordingBytes", report.maxRecordingBytes());
        doc.put("recordingCappedAfterNanos", report.recordingCappedAfterNanos());
        doc.put("arenasAtStart", report.arenasAtStart());
        doc.put("arenasAtEnd", report.arenasAtEnd());
        doc.put("arenasError", report.arenasError());
        return doc;
    }
}
