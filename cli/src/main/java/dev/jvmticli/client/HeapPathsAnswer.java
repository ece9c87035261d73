package dev.jvmticli.client;

import java.util.List;

/**
 * The answer to {@code heap.paths}: the one walk's figures (as {@link HeapPathsReport} has them), and
 * for each class asked about, in the order asked, its instances and paths. A class of that name not
 * loaded when the walk began is there with loaded false and no instance (the request fails when
 * none of them is loaded).
 */
public record HeapPathsAnswer(long elapsedNanos, HeapReport.Safepoints safepoints, long objects, long roots, long maxObjects,
                              long maxReferences, long agentBytes, List<ClassPaths> classes) {
    /** What the walk found for one class. */
    public record ClassPaths(String className, boolean loaded, long instances, long unreachedInstances, long pathCount,
                             List<HeapPathsReport.Path> paths) {
    }

    /** One class's paths with the walk's figures, as {@code heap --paths CLASS} reports them. */
    public HeapPathsReport report(ClassPaths paths) {
        return new HeapPathsReport(elapsedNanos, safepoints, objects, roots, maxObjects, maxReferences, agentBytes, paths.instances(),
                paths.unreachedInstances(), paths.pathCount(), paths.paths());
    }
}
