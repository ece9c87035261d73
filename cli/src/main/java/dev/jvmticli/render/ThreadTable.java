package dev.jvmticli.render;

import dev.jvmticli.analysis.CpuTop;
import dev.jvmticli.client.RunningThread;
import dev.jvmticli.client.ThreadEntry;
import dev.jvmticli.client.VmThread;
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

    /** Java threads and the JVM's own, in the order given; what a JVM thread does not have is "-". */
    public static void print(PrintWriter out, List<? extends RunningThread> threads) {
        Table table = new Table("ID", "KIND", "NID", "STATE", "CPU_MS", "PRI", "DAEMON", "DETAIL", "WAITING_FOR", "GROUP", "NAME")
                .alignRight(0, 2, 4, 5);
        for (RunningThread thread : threads) {
            if (thread instanceof ThreadEntry t) {
                table.add(Long.toString(t.id()), t.kind(), nid(t), t.state(), cpuMillis(t.cpuNanos()), Integer.toString(t.priority()),
                        t.daemon() ? "daemon" : "-", detail(t), waitingFor(t), t.group() == null ? "-" : t.group(), t.name());
            } else if (thread instanceof VmThread t) {
                table.add(id(t), t.kind(), nid(t), orDash(t.state()), cpuMillis(t.cpuNanos()), orDash(t.priority()),
                        Boolean.TRUE.equals(t.daemon()) ? "daemon" : "-", "-", "-", "-", t.name());
            }
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
    public static void printTop(PrintWriter out, List<? extends CpuTop.Entry<?>> rows, long intervalMillis) {
        out.println("CPU over " + intervalMillis + " ms:");
        Table table = new Table("ID", "KIND", "NID", "CPU%", "CPU_MS", "STATE", "NAME").alignRight(0, 2, 3, 4);
        for (CpuTop.Entry<?> row : rows) {
            RunningThread t = row.thread();
            table.add(id(t), t.kind(), nid(t), String.format(Locale.ROOT, "%.1f", row.cpuPercent()),
                    cpuMillis(row.cpuNanosInInterval()), orDash(t.state()), t.name());
        }
        table.print(out);
    }

    /** A Java thread's id; a JVM thread's where it has a java.lang.Thread; else "-". */
    private static String id(RunningThread thread) {
        return thread instanceof ThreadEntry t ? Long.toString(t.id())
                : thread instanceof VmThread t && t.id() != null ? Long.toString(t.id()) : "-";
    }

    private static String orDash(Object value) {
        return value == null ? "-" : value.toString();
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

    private static String nid(RunningThread t) {
        return t.nid() == 0 ? "?" : Long.toString(t.nid());
    }

    private static String cpuMillis(long nanos) {
        return nanos < 0 ? "?" : Long.toString(nanos / 1_000_000);
    }
}
