package dev.jvmticli.client;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/**
 * The answer to {@code alloc.stop}: heap samples aggregated by class and by (class, stack).
 * Frames are {@code [method index, bci, line]}, innermost first; line is -1 when unknown. gcs is how
 * many garbage collections finished during the session, null when the agent could not count them.
 */
public record AllocReport(long interval, long durationNanos, long samples, long sampledBytes, long estimatedBytes,
                          long droppedStacks, long droppedClasses, List<ClassTotal> classes, List<Stack> stacks,
                          List<MethodRef> methods, Long gcs) {
    /** A report without a GC count. */
    public AllocReport(long interval, long durationNanos, long samples, long sampledBytes, long estimatedBytes,
                       long droppedStacks, long droppedClasses, List<ClassTotal> classes, List<Stack> stacks,
                       List<MethodRef> methods) {
        this(interval, durationNanos, samples, sampledBytes, estimatedBytes, droppedStacks, droppedClasses, classes, stacks, methods, null);
    }

    /** One allocated class: its JVM signature and its samples. */
    public record ClassTotal(String name, long samples, long sampledBytes, long estimatedBytes) {
    }

    /** One distinct allocation stack of one class. */
    public record Stack(@JsonProperty("class") int classIndex, long samples, long sampledBytes, long estimatedBytes,
                        long[][] frames) {
    }
}
