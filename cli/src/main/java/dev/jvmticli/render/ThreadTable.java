package dev.jvmticli.render;

import dev.jvmticli.analysis.CpuTop;
import dev.jvmticli.client.ThreadEntry;
import dev.jvmticli.client.WaitingFor;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** The {@code threads} table, and the {@code threads --top} table. */
public final class ThreadTable {
    private ThreadTable() {
    }

    public static void print(PrintWriter out, List<ThreadEntry> threads) {
        Table table = new Table("ID", "NID", "STATE", "CPU_MS", "PRI", "DAEMON", "DETAIL", "WAITING_FOR", "GROUP", "NAME")
                .alignRight(0, 1, 3, 4);
        for (ThreadEntry t : threads) {
            table.add(Long.toString(t.id()), nid(t), t.state(), cpuMillis(t.cpuNanos()), Integer.toString(t.priority()),
                    t.daemon() ? "daemon" : "-", detail(t), waitingFor(t), t.group() == null ? "-" : t.group(), t.name());
        }
        table.print(out);
    }

    /** One row per thread with its share of one CPU over the interval; busiest first. */
    public static void printTop(PrintWriter out, List<CpuTop.Entry> rows, long intervalMillis) {
        out.println("CPU over " + intervalMillis + " ms:");
        Table table = new Table("ID", "NID", "CPU%", "CPU_MS", "STATE", "NAME").alignRight(0, 1, 2, 3);
        for (CpuTop.Entry row : rows) {
            table.add(Long.toString(row.thread().id()), nid(row.thread()), String.format(Locale.ROOT, "%.1f", row.cpuPercent()),
                    cpuMillis(row.cpuNanosInInterval()), row.thread().state(), row.thread().name());
        }
        table.print(out);
    }

    static String detail(ThreadEntry t) {
        List<String> parts = new ArrayList<>(t.flags() == null ? List.of() : t.flags());
        if (t.agent()) {
            parts.add("jvmti-cli agent");
        }
        return parts.isEmpty() ? "-" : String.join(",", parts);
    }

    /** {@code SimpleName@hash owner #id} (the hash as in stacks' {@code <0x…>}), or "-". */
    static String waitingFor(ThreadEntry t) {
        WaitingFor wait = t.waitingFor();
        if (wait == null) {
            return "-";
        }
        String simpleName = wait.className().substring(wait.className().lastIndexOf('.') + 1);
        return simpleName + "@" + Long.toHexString(wait.hash()) + (wait.hasOwner() ? " owner #" + wait.ownerId() : "");
    }

    private static String nid(ThreadEntry t) {
        return t.nid() == 0 ? "?" : Long.toString(t.nid());
    }

    private static String cpuMillis(long nanos) {
        return nanos < 0 ? "?" : Long.toString(nanos / 1_000_000);
    }
}
