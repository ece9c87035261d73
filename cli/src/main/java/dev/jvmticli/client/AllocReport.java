package dev.jvmticli.client;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/**
 * The answer to {@code alloc.stop}: heap samples aggregated by class and by (class, stack).
 * Frames are {@code [method index, bci, line]}, innermost first; line is -1 when unknown. gcs is how
 * many garbage collections finished during the session, null when the agent could not count them.
 * live is null unless the session ran with {@code live}: then the classes and stacks count only the
 * sampled objects still alive at stop that survived at least {@link Live#minAge()} collections,
 * each with the youngest and oldest age among them, and the totals still count every sample taken.
 * paths is null unless the stop asked for the survivors' paths from GC roots ({@link LivePathsRequest}).
 */
public record AllocReport(long interval, long durationNanos, long samples, long sampledBytes, long estimatedBytes,
                          long droppedStacks, long droppedClasses, List<ClassTotal> classes, List<Stack> stacks,
                          List<MethodRef> methods, Long gcs, Live live, LivePaths paths) {
    /** A report without a GC count, of all samples. */
    public AllocReport(long interval, long durationNanos, long samples, long sampledBytes, long estimatedBytes,
                       long droppedStacks, long droppedClasses, List<ClassTotal> classes, List<Stack> stacks,
                       List<MethodRef> methods) {
        this(interval, durationNanos, samples, sampledBytes, estimatedBytes, droppedStacks, droppedClasses, classes, stacks, methods, null, null);
    }

    /** A report without paths. */
    public AllocReport(long interval, long durationNanos, long samples, long sampledBytes, long estimatedBytes,
                       long droppedStacks, long droppedClasses, List<ClassTotal> classes, List<Stack> stacks,
                       List<MethodRef> methods, Long gcs, Live live) {
        this(interval, durationNanos, samples, sampledBytes, estimatedBytes, droppedStacks, droppedClasses, classes, stacks, methods, gcs, live, null);
    }

    /** One allocated class: its JVM signature and its samples; the ages only in a live report. */
    public record ClassTotal(String name, long samples, long sampledBytes, long estimatedBytes, Long youngest, Long oldest) {
        public ClassTotal(String name, long samples, long sampledBytes, long estimatedBytes) {
            this(name, samples, sampledBytes, estimatedBytes, null, null);
        }
    }

    /** One distinct allocation stack of one class; the ages only in a live report. */
    public record Stack(@JsonProperty("class") int classIndex, long samples, long sampledBytes, long estimatedBytes,
                        long[][] frames, Long youngest, Long oldest) {
        public Stack(int classIndex, long samples, long sampledBytes, long estimatedBytes, long[][] frames) {
            this(classIndex, samples, sampledBytes, estimatedBytes, frames, null, null);
        }
    }

    /** Samples, their exact bytes, and the bytes they stand for. */
    public record Totals(long samples, long sampledBytes, long estimatedBytes) {
    }

    /**
     * The live table: each sample got a weak reference in a table of capacity entries (tracked),
     * unless it was larger than the largest the table follows (largestBytes, 0 for any; tooLarge),
     * the table was full (tableFull), its sampled bytes would have passed the bytes the table
     * follows at once (budgetBytes; overBudget) or no reference could be made (noReference);
     * collected of them were freed during the session. collections: those the agent saw (ages count them).
     * survivors: alive at stop and at least minAge collections old; younger: alive, not that old.
     */
    public record Live(int minAge, int capacity, long tracked, long largestBytes, long tooLarge, long tableFull, long budgetBytes,
                       long overBudget, long noReference, long collected,
                       long collections, Totals survivors, Totals younger) {
    }
}
