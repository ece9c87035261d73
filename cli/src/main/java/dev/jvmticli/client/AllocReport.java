package dev.jvmticli.client;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/**
 * The answer to {@code alloc.stop}: heap samples aggregated by class and by (class, stack).
 * Frames are {@code [method index, bci, line]}, innermost first; line is -1 when unknown.
 */
public record AllocReport(long interval, long durationNanos, long samples, long sampledBytes, long estimatedBytes,
                          long droppedStacks, long droppedClasses, List<ClassTotal> classes, List<Stack> stacks,
                          List<MethodRef> methods) {
    /** One allocated class: its JVM signature and its samples. */
    public record ClassTotal(String name, long samples, long sampledBytes, long estimatedBytes) {
    }

    /** One distinct allocation stack of one class. */
    public record Stack(@JsonProperty("class") int classIndex, long samples, long sampledBytes, long estimatedBytes,
                        long[][] frames) {
    }
}
