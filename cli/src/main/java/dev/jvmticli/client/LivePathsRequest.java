package dev.jvmticli.client;

import java.util.Map;

/**
 * {@code alloc.stop} of an {@code alloc --live} session, asking also for the paths from GC roots to
 * the survivors it reports (one walk of the heap from its roots at a safepoint, as {@code heap.paths}
 * does): {@code heap --paths --from-live}.
 *
 * @param maxPaths   the paths to answer, most estimated bytes first
 * @param maxDepth   the objects to name on a path, counted from the sampled object
 * @param maxObjects the walk stops (and the paths fail) past this many objects, or four references per object
 */
public record LivePathsRequest(int maxPaths, int maxDepth, long maxObjects) implements AgentRequest {
    @Override
    public String command() {
        return "alloc.stop";
    }

    @Override
    public Map<String, Object> arguments() {
        return Map.of("paths", true, "maxPaths", maxPaths, "maxDepth", maxDepth, "maxObjects", maxObjects);
    }
}
