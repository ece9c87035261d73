package dev.jvmticli.analysis;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A class histogram as the JDK's GC.class_histogram prints it
 * ({@code   1:   12345   678901  [B (java.base@17.0.9)}), and the growth between histograms.
 * Classes of the same name (from different loaders) are added together.
 *
 * <p>The fillers a GC writes over dead space to keep the heap walkable (the unused end of a retired
 * TLAB, a region's tail) are no objects of the application: they are kept out of the rows and the
 * totals and counted apart in {@code filler}. JDK 17 fills with int[], which cannot be told apart.
 *
 * @param instances the objects counted, fillers left out
 * @param bytes     their bytes, fillers left out
 */
public record Histogram(List<Row> rows, long instances, long bytes, Filler filler) {
    /** HotSpot's filler classes (JDK 21+): filler arrays, and filler objects where an array does not fit. */
    private static final Set<String> FILLER_CLASSES = Set.of("[Ljdk.internal.vm.FillerElement;", "jdk.internal.vm.FillerObject");

    private static final Pattern ROW = Pattern.compile("^\\s*\\d+:\\s+(\\d+)\\s+(\\d+)\\s+(.+?)\\s*$");
    private static final Pattern MODULE = Pattern.compile("^(.*?) \\((.*)\\)$");
    private static final Pattern TOTAL = Pattern.compile("^Total\\s+(\\d+)\\s+(\\d+)\\s*$");

    /** module is null for a class of the unnamed module. */
    public record Row(String className, String module, long instances, long bytes) {
    }

    /** The fillers of a histogram: none when both are 0 (also on a JDK whose fillers are plain int[]). */
    public record Filler(long instances, long bytes) {
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

    /** The rows in the order printed (most bytes first), fillers apart; the totals from its Total line, else the sums. */
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
        List<Row> fillers = rows.stream().filter(r -> FILLER_CLASSES.contains(r.className())).toList();
        rows.removeAll(fillers);
        rows.sort(Comparator.comparingLong(Row::bytes).reversed());
        Filler filler = new Filler(fillers.stream().mapToLong(Row::instances).sum(), fillers.stream().mapToLong(Row::bytes).sum());
        if (totalInstances < 0) {
            totalInstances = rows.stream().mapToLong(Row::instances).sum();
            totalBytes = rows.stream().mapToLong(Row::bytes).sum();
        } else {
            totalInstances -= filler.instances();
            totalBytes -= filler.bytes();
        }
        return new Histogram(List.copyOf(rows), totalInstances, totalBytes, filler);
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
