package dev.jvmticli.client;

import java.util.Map;

/**
 * {@code heap --paths}: the shortest paths from GC roots to the instances of a class, found by one
 * walk of the heap from its roots at a safepoint.
 *
 * @param className  the class, as Class.getName() has it or with {@code []} for arrays
 * @param maxPaths   the paths to answer, most instances first
 * @param maxDepth   the objects to name on a path, counted from the instance; those nearer the root are only counted
 * @param maxObjects the walk stops (and the request fails) past this many objects, or four references per object:
 *                   the bound on the memory the agent takes in the target
 */
public record HeapPathsRequest(String className, int maxPaths, int maxDepth, long maxObjects) implements AgentRequest {
    @Override
    public String command() {
        return "heap.paths";
    }

    @Override
    public Map<String, Object> arguments() {
        return Map.of("className", className, "maxPaths", maxPaths, "maxDepth", maxDepth, "maxObjects", maxObjects);
    }
}
