package dev.jvmticli.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;

/** What /proc tells about a target: its descriptors, memory, sockets and the agent's thread. */
public final class Proc {
    private Proc() {
    }

    /** fd number to what it points at ("socket:[123]", "/path", "pipe:[4]"). */
    public static TreeMap<Integer, String> fds(long pid) {
        TreeMap<Integer, String> fds = new TreeMap<>();
        try (Stream<Path> entries = Files.list(Path.of("/proc", Long.toString(pid), "fd"))) {
            entries.forEach(fd -> {
                try {
                    fds.put(Integer.parseInt(fd.getFileName().toString()), Files.readSymbolicLink(fd).toString());
                } catch (IOException e) {
                    // closed meanwhile
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return fds;
    }

    /** Resident set size in KiB. */
    public static long rssKib(long pid) {
        return statusField(pid, "VmRSS:");
    }

    public static long threadCount(long pid) {
        return statusField(pid, "Threads:");
    }

    /** Inodes of every TCP, UDP and raw socket in the process's network namespace, listening or not. */
    public static Set<String> inetSocketInodes(long pid) {
        Set<String> inodes = new HashSet<>();
        for (String table : List.of("tcp", "tcp6", "udp", "udp6", "raw", "raw6")) {
            try {
                List<String> lines = Files.readAllLines(Path.of("/proc", Long.toString(pid), "net", table));
                for (String line : lines.subList(1, lines.size())) {
                    String[] columns = line.trim().split("\\s+");
                    inodes.add("socket:[" + columns[9] + "]");
                }
            } catch (IOException e) {
                // no such table (IPv6 off)
            }
        }
        return inodes;
    }

    /** How many threads of the process are named like the agent's. */
    public static long agentThreads(long pid) {
        try (Stream<Path> tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
            return tasks.filter(task -> {
                try {
                    return Files.readString(task.resolve("comm")).strip().equals("jvmti-cli agent");
                } catch (IOException e) {
                    return false;
                }
            }).count();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static long statusField(long pid, String name) {
        try {
            return Files.readAllLines(Path.of("/proc", Long.toString(pid), "status")).stream()
                    .filter(line -> line.startsWith(name))
                    .map(line -> Long.parseLong(line.substring(name.length()).trim().split("\\s+")[0]))
                    .findFirst().orElseThrow();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** utime + stime of each task of the process, in clock ticks, by task id. */
    public static Map<Long, Long> cpuTicksByTask(long pid) throws IOException {
        Map<Long, Long> ticks = new HashMap<>();
        try (Stream<Path> tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
            for (Path task : tasks.toList()) {
                try {
                    String stat = Files.readString(task.resolve("stat"));
                    String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                    // fields[0] is field 3 (state): utime is field 14, stime field 15
                    ticks.put(Long.parseLong(task.getFileName().toString()), Long.parseLong(fields[11]) + Long.parseLong(fields[12]));
                } catch (IOException ended) {
                    // the task ended while listed
                }
            }
        }
        return ticks;
    }

    /** One task's utime and stime (fields 14 and 15 of its stat), in clock ticks. */
    public static long[] userSystemTicks(long pid, long tid) throws IOException {
        String stat = Files.readString(Path.of("/proc", Long.toString(pid), "task", Long.toString(tid), "stat"));
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return new long[] {Long.parseLong(fields[11]), Long.parseLong(fields[12])};
    }
}
