package dev.jvmticli.client;

import java.util.List;

/**
 * The answer to {@code exceptions.stop}: every Throwable created in the window counted by its class
 * (exceptions; unlisted: those of classes past the agent's bound), and, at most stacksPerSecond times a
 * second for each class, its creating thread's stack (stacks, grouped: exception indexes exceptions,
 * count is the stacks taken; frames {@code [frame method index, bci, line]}, innermost first, from
 * Throwable's constructor, indexing frameMethods, whose jdk says whether the JDK defined the class) and
 * its message, as its constructor got it (up to 3 distinct ones; nullMessages: a sampled one had none).
 * droppedStacks: stacks taken that found no room. classes and cost as in {@link TraceReport}.
 * <p>
 * throwEvents: the agent had JVMTI's Exception and ExceptionCatch events on (start-up mode with the
 * exception-events option); then each class also has thrown, caught and uncaught (null otherwise),
 * each exception object counted once, at its first throw, by where it went in the end (a later throw
 * of the same object undoes its earlier catch), and catches, per class, the methods that caught them
 * last (caught) and the methods that first threw those no Java frame caught (not caught), one frame
 * each; droppedCatches: those that found no room; unlistedEvents: exceptions thrown of classes past
 * the agent's bound.
 */
public record ExceptionsReport(long durationNanos, String restoreFailure, TraceReport.Cost cost, List<TraceReport.ClassState> classes,
                               int stacksPerSecond, long unlisted, long droppedStacks, List<ExceptionClass> exceptions,
                               List<Stack> stacks, List<MethodRef> frameMethods, boolean throwEvents, List<Catch> catches,
                               long droppedCatches, long unlistedEvents) {
    public record ExceptionClass(String name, long count, long sampled, boolean nullMessages, List<String> messages, Long thrown,
                                 Long caught, Long uncaught) {
    }

    public record Catch(int exception, boolean caught, long count, long[][] frames) {
    }

    public record Stack(int exception, long count, long[][] frames) {
    }
}
