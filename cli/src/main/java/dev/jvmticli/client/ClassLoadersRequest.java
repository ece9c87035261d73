package dev.jvmticli.client;

import java.util.Map;

/**
 * {@code memory --classloaders}: every class loader with the classes it defined, and the ones that
 * look dead but are still reachable, found by one walk of the heap from its roots at a safepoint.
 *
 * @param maxPaths   the dead-looking loaders to answer a path for
 * @param maxDepth   the objects to name on a path, counted from the loader
 * @param maxObjects the walk stops (and the request fails) past this many objects, or four references per object:
 *                   the bound on the memory the agent takes in the target
 * @param maxVirtualThreads the virtual threads whose stacks are read at most; those found past it are counted, not read
 */
public record ClassLoadersRequest(int maxPaths, int maxDepth, long maxObjects, long maxVirtualThreads) implements AgentRequest {
    @Override
    public String command() {
        return "classloaders";
    }

    @Override
    public Map<String, Object> arguments() {
        return Map.of("maxPaths", maxPaths, "maxDepth", maxDepth, "maxObjects", maxObjects, "maxVirtualThreads", maxVirtualThreads);
    }
}
