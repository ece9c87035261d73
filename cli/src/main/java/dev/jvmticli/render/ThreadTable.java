package dev.jvmticli.render;

import dev.jvmticli.analysis.CpuTop;
import dev.jvmticli.client.ThreadEntry;
import dev.jvmticli.client.WaitingFor;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

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

    /** Virtual threads: id, state, detail flags, carrier when mounted, name (the id when it has none). */
    public static void printVirtual(PrintWriter out, List<ThreadEntry> threads) {
        Table table = new Table("ID", "STATE", "DETAIL", "CARRIER", "NAME").alignRight(0);
        for (ThreadEntry t : threads) {
            table.add(Long.toString(t.id()), t.state(), detail(t), t.carrierId() == null ? "-" : "#" + t.carrierId(), t.displayName());
        }
        table.print(out);
    }

    /** Counts by state per kind of thread. */
    public static void printSummary(PrintWriter out, Map<String, Summary> byKind) {
        List<String> states = List.of("NEW", "RUNNABLE", "BLOCKED", "WAITING", "TIMED_WAITING", "TERMINATED");
        List<String> header = new ArrayList<>(List.of("KIND", "THREADS"));
        header.addAll(states);
        header.addAll(List.of("MOUNTED", "PINNED"));
        Table table = new Table(header.toArray(String[]::new)).alignRight(1, 2, 3, 4, 5, 6, 7, 8, 9);
        byKind.forEach((kind, s) -> {
            List<String> row = new ArrayList<>(List.of(kind, Long.toString(s.count())));
            states.forEach(state -> row.add(Long.toString(s.byState().getOrDefault(state, 0L))));
            row.add(s.mounted() == null ? "-" : Long.toString(s.mounted()));
            row.add(s.pinned() == null ? "-" : Long.toString(s.pinned()));
            table.add(row.toArray(String[]::new));
        });
        table.print(out);
    }

    /** Threads of one kind counted by state; mounted and pinned only for virtual threads. */
    public record Summary(long count, Map<String, Long> byState, Long mounted, Long pinned) {
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
        if (t.pinned()) {
            parts.add("pinned");
        }
        if (t.carrying() != null) {
            parts.add("carrying #" + t.carrying());
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
