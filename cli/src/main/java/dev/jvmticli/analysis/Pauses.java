package dev.jvmticli.analysis;

import dev.jvmticli.client.PausesReport;
import dev.jvmticli.client.PausesReport.Pause;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Pattern;

/** The totals of a pauses report, and the pauses whose safepoint took long to reach. */
public final class Pauses {
    /** A collector's figures after its cause: " 24M->3M(256M) 3.456ms", or a duration alone. */
    private static final Pattern FIGURES = Pattern.compile("(\\s+\\d+[BKMGT]?(\\(\\d+%\\))?->\\S+)?\\s+\\d+(\\.\\d+)?ms$");

    private Pauses() {
    }

    /**
     * count, the sum of their totals, the longest, their share of the window's wall time, and the
     * same for reaching the safepoint.
     */
    public record Totals(int count, long totalNanos, Pause longest, double shareOfWall, long reachingNanos, Pause longestReaching) {
    }

    public static Totals totals(PausesReport report) {
        List<Pause> pauses = report.pauses();
        long total = pauses.stream().mapToLong(Pause::totalNanos).sum();
        long reaching = pauses.stream().mapToLong(Pause::reachingNanos).sum();
        Pause longest = pauses.stream().max(Comparator.comparingLong(Pause::totalNanos)).orElse(null);
        Pause longestReaching = pauses.stream().max(Comparator.comparingLong(Pause::reachingNanos)).orElse(null);
        double share = report.durationNanos() <= 0 ? 0 : (double) total / report.durationNanos();
        return new Totals(pauses.size(), total, longest, share, reaching, longestReaching);
    }

    /** The pauses whose safepoint took longer than thresholdNanos to reach, longest first. */
    public static List<Pause> slowToReach(PausesReport report, long thresholdNanos) {
        return report.pauses().stream().filter(p -> p.reachingNanos() > thresholdNanos)
                .sorted(Comparator.comparingLong(Pause::reachingNanos).reversed()).toList();
    }

    /** The collector's pause and cause without its heap figures ("Pause Young (Normal) (G1 Evacuation Pause)"); null for none. */
    public static String gcCause(Pause pause) {
        return pause.gc() == null ? null : FIGURES.matcher(pause.gc()).replaceFirst("");
    }
}
