package dev.jvmticli.analysis;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A class histogram as the JDK's GC.class_histogram prints it
 * ({@code   1:   12345   678901  [B (java.base@17.0.9)}), and the growth between histograms.
 * Classes of the same name (from different loaders) are added together.
 */
public record Histogram(List<Row> rows, long instances, long bytes) {
    private static final Pattern ROW = Pattern.compile("^\\s*\\d+:\\s+(\\d+)\\s+(\\d+)\\s+(.+?)\\s*$");
    private static final Pattern MODULE = Pattern.compile("^(.*?) \\((.*)\\)$");
    private static final Pattern TOTAL = Pattern.compile("^Total\\s+(\\d+)\\s+(\\d+)\\s*$");

    /** module is null for a class of the unnamed module. */
    public record Row(String className, String module, long instances, long bytes) {
    }

    /** A class's instances and bytes at each histogram, oldest first (0 where it had none). */
    public record Growth(String className, long[] instances, long[] bytes) {
        public long bytesGrown() {
            return bytes[bytes.length - 1] - bytes[0];
        }

        public long instancesGrown() {
            return instances[instances.length - 1] - instances[0];
        }
    }

    /** The rows in the order printed (most bytes first); the totals from its Total line, else the sums. */
    public static Histogram parse(String text) {
        Map<String, Row> byName = new LinkedHashMap<>();
        long totalInstances = -1;
        long totalBytes = -1;
        for (String line : text.split("\n")) {
            Matcher row = ROW.matcher(line);
            if (row.matches()) {
                String name = row.group(3);
                String module = null;
                Matcher named = MODULE.matcher(name);
                if (named.matches()) {
                    name = named.group(1);
                    module = named.group(2);
                }
                Row parsed = new Row(name, module, Long.parseLong(row.group(1)), Long.parseLong(row.group(2)));
                byName.merge(name, parsed, (a, b) -> new Row(a.className(), a.module(), a.instances() + b.instances(), a.bytes() + b.bytes()));
                continue;
            }
            Matcher total = TOTAL.matcher(line.trim());
            if (total.matches()) {
                totalInstances = Long.parseLong(total.group(1));
                totalBytes = Long.parseLong(total.group(2));
            }
        }
        List<Row> rows = new ArrayList<>(byName.values());
        rows.sort(Comparator.comparingLong(Row::bytes).reversed());
        if (totalInstances < 0) {
            totalInstances = rows.stream().mapToLong(Row::instances).sum();
            totalBytes = rows.stream().mapToLong(Row::bytes).sum();
        }
        return new Histogram(List.copyOf(rows), totalInstances, totalBytes);
    }

    public List<Row> top(int n) {
        return rows.subList(0, Math.min(n, rows.size()));
    }

    /** Every class in any of the histograms, ordered by bytes grown from the first to the last, most first. */
    public static List<Growth> growth(List<Histogram> rounds) {
        Map<String, Growth> byName = new LinkedHashMap<>();
        for (int i = 0; i < rounds.size(); i++) {
            for (Row row : rounds.get(i).rows()) {
                Growth growth = byName.computeIfAbsent(row.className(),
                        name -> new Growth(name, new long[rounds.size()], new long[rounds.size()]));
                growth.instances()[i] = row.instances();
                growth.bytes()[i] = row.bytes();
            }
        }
        List<Growth> grown = new ArrayList<>(byName.values());
        grown.sort(Comparator.comparingLong(Growth::bytesGrown).reversed().thenComparing(Growth::className));
        return grown;
    }
}
