package dev.jvmticli.render;

import dev.jvmticli.client.MemoryReport;
import dev.jvmticli.client.VmInfo;
import java.io.PrintWriter;
import java.util.List;

/** The `memory` command's text: the JVM's own accounts, then the kernel's, then NMT's. */
public final class MemoryView {
    /** The kernel's fields shown (smaps_rollup, status), in this order, with what they mean. */
    private static final List<String[]> RESIDENT = List.of(
            new String[] {"Rss", "resident"},
            new String[] {"RssAnon", "anonymous: heap, stacks, malloc, code cache"},
            new String[] {"RssFile", "file-backed: the JDK's libraries and modules, mapped files"},
            new String[] {"RssShmem", "shared memory"},
            new String[] {"Shared_Clean", "shared with other processes, clean"},
            new String[] {"Shared_Dirty", "shared with other processes, dirty"},
            new String[] {"Swap", "swapped out"});

    private MemoryView() {
    }

    public static void print(PrintWriter out, MemoryReport report, VmInfo.Flag stackSize) {
        Table usage = new Table("USED", "COMMITTED", "MAX", "WHAT").alignRight(0, 1, 2);
        addUsage(usage, report.heap(), "heap");
        for (MemoryReport.Pool pool : report.pools()) {
            if ("HEAP".equals(pool.type())) {
                addUsage(usage, pool.usage(), "  " + pool.name());
            }
        }
        addUsage(usage, report.nonHeap(), "non-heap");
        for (MemoryReport.Pool pool : report.pools()) {
            if (!"HEAP".equals(pool.type())) {
                addUsage(usage, pool.usage(), "  " + pool.name());
            }
        }
        usage.print(out);
        out.println();
        Table buffers = new Table("COUNT", "USED", "CAPACITY", "BUFFERS").alignRight(0, 1, 2);
        for (MemoryReport.BufferPool pool : report.bufferPools()) {
            buffers.add(Long.toString(pool.count()), Sizes.bytes(pool.used()), Sizes.bytes(pool.capacity()), pool.name());
        }
        buffers.print(out);
        out.println();
        if (report.threads() != null) {
            out.println(threadStacks(report.threads(), stackSize));
        }
        Table collectors = new Table("COLLECTIONS", "TIME ms", "COLLECTOR").alignRight(0, 1);
        for (MemoryReport.Collector collector : report.collectors()) {
            collectors.add(Long.toString(collector.count()), Long.toString(collector.timeMillis()), collector.name());
        }
        collectors.print(out);
        out.println();
        if (report.residentError() != null) {
            out.println("resident memory partly unknown: " + report.residentError());
        }
        if (report.resident() != null) {
            Table resident = new Table("BYTES", "RESIDENT (/proc/<pid>/smaps_rollup, status)").alignRight(0);
            for (String[] field : RESIDENT) {
                Long bytes = report.resident().get(field[0]);
                if (bytes != null) {
                    resident.add(Sizes.bytes(bytes), field[1] + " [" + field[0] + "]");
                }
            }
            resident.print(out);
        }
        out.println();
        printNativeMemory(out, report);
        out.flush();
    }

    /** Thread stacks as reserved: count × ThreadStackSize (what -Xss sets); what is resident is in RSS. */
    static String threadStacks(int threads, VmInfo.Flag stackSize) {
        if (stackSize == null || stackSize.value() == null) {
            return threads + " Java threads; stack size unknown (ThreadStackSize not reported)";
        }
        long kilobytes = Long.parseLong(stackSize.value());
        String source = "DEFAULT".equals(stackSize.origin()) ? "the JVM's default ThreadStackSize"
                : "ThreadStackSize, " + stackSize.origin() + " (-Xss sets it)";
        return String.format(java.util.Locale.ROOT, "%d Java threads x %s stack (%s) = %s reserved for stacks (resident: only the pages touched)",
                threads, Sizes.bytes(kilobytes * 1024), source, Sizes.bytes(threads * kilobytes * 1024));
    }

    private static void printNativeMemory(PrintWriter out, MemoryReport report) {
        String text = report.nativeMemory();
        if (text == null) {
            out.println("native memory tracking unknown: " + report.nativeMemoryError());
        } else if (text.contains("not enabled")) {
            out.println("native memory tracking is off: start the JVM with -XX:NativeMemoryTracking=summary to see it here");
        } else {
            text.lines().forEach(line -> out.println(Printable.text(line)));
        }
    }

    private static void addUsage(Table table, MemoryReport.Usage usage, String what) {
        if (usage != null) {
            table.add(Sizes.bytes(usage.used()), Sizes.bytes(usage.committed()), usage.max() < 0 ? "-" : Sizes.bytes(usage.max()), what);
        }
    }
}
