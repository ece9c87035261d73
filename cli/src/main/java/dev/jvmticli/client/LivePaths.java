package dev.jvmticli.client;

import java.util.List;

/**
 * The paths from GC roots to the survivors of an {@code alloc --live} session (its stop, asked by
 * {@link LivePathsRequest}), or the error that kept the walk from answering (then the rest is empty).
 * As {@link HeapPathsReport}, with the sampled objects as the instances: instances those reached
 * strongly from a root; unreachedInstances those reached only through a Reference's referent or
 * from the agent's thread; samplesNotReached those the walk never reached (garbage no collection
 * had freed yet, or freed since). Each path groups samples of one allocation site (stack, an index
 * into the report's stacks) on one path, with the bytes they stand for (estimatedBytes). Without
 * a survivor the heap is not walked: objects is 0 (a walk always reaches some).
 */
public record LivePaths(Error error, long elapsedNanos, HeapReport.Safepoints safepoints, long objects, long roots, long maxObjects,
                        long maxReferences, long agentBytes, long instances, long unreachedInstances, long samplesNotReached, long pathCount,
                        List<Path> paths) {
    /** Why there are no paths: heap_too_large (past maxObjects), out_of_memory, jvmti_error, bad_request. */
    public record Error(String code, String message) {
    }

    /** Samples of one site on one path. */
    public record Path(long instances, long estimatedBytes, int stack, long length, HeapPathsReport.Root root, long stepsLeftOut,
                       List<HeapPathsReport.Step> steps) {
    }

    /** Whether the heap was walked: not when there was no survivor to find a path to. */
    public boolean walked() {
        return objects > 0;
    }

    /** The walk's figures as heap --paths reports them, for its pause line. */
    public HeapPathsReport walk() {
        return new HeapPathsReport(elapsedNanos, safepoints, objects, roots, maxObjects, maxReferences, agentBytes, instances,
                unreachedInstances, pathCount, List.of());
    }
}
