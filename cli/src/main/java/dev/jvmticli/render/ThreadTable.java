package dev.jvmticli.render;

import dev.jvmticli.analysis.CpuTop;
import dev.jvmticli.analysis.PauseDelta;
import dev.jvmticli.client.PauseTotals;
import dev.jvmticli.client.RunningThread;
import dev.jvmticli.client.ThreadEntry;
import dev.jvmticli.client.VmThread;
import dev.jvmticli.client.WaitingFor;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

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

    /**
     * One row per thread with its share of one CPU over the interval, busiest first; with usage
     * (the snapshots carried it), also its user and system shares and the bytes it allocated per
     * second: "?" where unknown, "-" for a JVM thread's allocation (it allocates no Java objects).
     */
    public static void printTop(PrintWriter out, List<? extends CpuTop.Entry<?>> rows, long intervalNanos, boolean usage) {
        out.println("CPU over " + intervalNanos / 1_000_000 + " ms:");
        Table table = usage ? new Table("ID", "KIND", "NID", "CPU%", "USER%", "SYS%", "CPU_MS", "ALLOC/S", "STATE", "NAME").alignRight(0, 2, 3, 4, 5, 6, 7)
                : new Table("ID", "KIND", "NID", "CPU%", "CPU_MS", "STATE", "NAME").alignRight(0, 2, 3, 4);
        for (CpuTop.Entry<?> row : rows) {
            RunningThread t = row.thread();
            String cpu = String.format(Locale.ROOT, "%.1f", row.cpuPercent());
            if (usage) {
                String allocated = t instanceof VmThread ? "-" : row.allocatedBytesInInterval() == null ? "?"
                        : Sizes.bytes(Math.round(row.allocatedBytesInInterval() * 1e9 / intervalNanos));
                table.add(id(t), t.kind(), nid(t), cpu, share(row.userNanosInInterval(), intervalNanos), share(row.systemNanosInInterval(), intervalNanos),
                        cpuMillis(row.cpuNanosInInterval()), allocated, orDash(t.state()), t.name());
            } else {
                table.add(id(t), t.kind(), nid(t), cpu, cpuMillis(row.cpuNanosInInterval()), orDash(t.state()), t.name());
            }
        }
        table.print(out);
    }

    /**
     * The JVM's pauses between the reads: the safepoints (count, time at them, time reaching them)
     * and each collector's collections; a line left out where the JVM did not say.
     */
    public static void printPauses(PrintWriter out, PauseDelta pauses) {
        String over = " in " + pauses.nanos() / 1_000_000 + " ms: ";
        if (pauses.safepoints() != null) {
            PauseTotals.Safepoints s = pauses.safepoints();
            out.println("Safepoints" + over + s.count() + ", " + s.atSafepointMillis() + " ms at them, " + s.reachingMillis()
                    + " ms reaching them (" + Sizes.percent((s.atSafepointMillis() + s.reachingMillis()) * 1_000_000, pauses.nanos())
                    + "% of the time)");
        }
        if (!pauses.collectors().isEmpty()) {
            out.println("GC" + over + pauses.collectors().stream()
                    .map(c -> c.name() + " " + c.count() + (c.count() == 0 ? "" : " (" + c.millis() + " ms)"))
                    .collect(Collectors.joining(", ")));
        }
    }

    /** A share of one CPU over the interval, "?" when unknown. */
    private static String share(Long nanos, long intervalNanos) {
        return nanos == null ? "?" : Sizes.percent(nanos, intervalNanos);
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
