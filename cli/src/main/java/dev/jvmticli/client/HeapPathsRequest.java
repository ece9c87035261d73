package dev.jvmticli.client;

import java.util.List;
import java.util.Map;

/**
 * {@code heap --paths}: the shortest paths from GC roots to the instances of each class named,
 * found by one walk of the heap from its roots at a safepoint, answered for each class apart.
 *
 * @param classNames the classes (1 to 16, each once), as Class.getName() has them or with {@code []} for arrays
 * @param maxPaths   the paths to answer for each class, most instances first
 * @param maxDepth   the objects to name on a path, counted from the instance; those nearer the root are only counted
 * @param maxObjects the walk stops (and the request fails) past this many objects, or four references per object:
 *                   the bound on the memory the agent takes in the target
 */
public record HeapPathsRequest(List<String> classNames, int maxPaths, int maxDepth, long maxObjects) implements AgentRequest {
    public HeapPathsRequest {
        classNames = List.copyOf(classNames);
    }

    @Override
    public String command() {
        return "heap.paths";
    }

    @Override
    public Map<String, Object> arguments() {
        return Map.of("classNames", classNames, "maxPaths", maxPaths, "maxDepth", maxDepth, "maxObjects", maxObjects);
    }
}
