package dev.jvmticli.render;

import dev.jvmticli.attach.LocalJvm;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;

/** The {@code list} table: one local JVM per line, its main class or jar last. */
public final class JvmTable {
    private JvmTable() {
    }

    /** A JVM with what {@code list} measured of it. */
    public record Row(LocalJvm jvm, Duration uptime, boolean agent) {
    }

    public static void print(PrintWriter out, List<Row> rows) {
        Table table = new Table("PID", "JDK", "UPTIME", "AGENT", "MAIN").alignRight(0, 2);
        for (Row row : rows) {
            table.add(Long.toString(row.jvm().pid()), row.jvm().jdk() == null ? "?" : row.jvm().jdk(), uptime(row.uptime()),
                    row.agent() ? "yes" : "-", row.jvm().main());
        }
        table.print(out);
    }

    /** 42s, 3m05s, 2h07m, 3d04h. */
    static String uptime(Duration uptime) {
        if (uptime == null) {
            return "?";
        }
        long s = Math.max(0, uptime.toSeconds());
        if (s < 60) {
            return s + "s";
        }
        if (s < 3600) {
            return String.format("%dm%02ds", s / 60, s % 60);
        }
        if (s < 86_400) {
            return String.format("%dh%02dm", s / 3600, s % 3600 / 60);
        }
        return String.format("%dd%02dh", s / 86_400, s % 86_400 / 3600);
    }
}
