package dev.jvmticli.client;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/**
 * The answer to {@code heap.paths}. objects and roots are what the walk reached (classes apart:
 * each is a root of its own); agentBytes the most memory the agent's tables took at once;
 * instances the asked class's instances strongly reachable from a root other than the agent's
 * own thread, unreachedInstances those the walk reached only from it or through a Reference's referent. pathCount counts every distinct path; paths has
 * the first maxPaths, most instances first. safepoints is null when the JVM keeps no safepoint times.
 */
public record HeapPathsReport(long elapsedNanos, HeapReport.Safepoints safepoints, long objects, long roots, long maxObjects,
                              long maxReferences, long agentBytes, long instances, long unreachedInstances, long pathCount,
                              List<Path> paths) {
    /**
     * Instances whose shortest paths go through the same root and the same classes and fields
     * (array indexes apart). length counts the objects on it, the root's first and the instance's
     * last; steps are its last ones, stepsLeftOut those before them that are not named.
     */
    public record Path(long instances, long length, Root root, long stepsLeftOut, List<Step> steps) {
    }

    /**
     * Where a path starts. kind is one of staticField, constantPool, classLoader, signers,
     * protectionDomain (the class's, named by className), stackLocal and jniLocal (a thread's
     * frame), thread (the Thread object of a live thread), jniGlobal, monitor, systemClass, other.
     * keepsBytes is what the objects whose shortest path starts at a root of this description take
     * (references counts those roots).
     */
    public record Root(String kind, @JsonProperty("class") String className, String field, Integer fieldIndex, String thread,
                       Long threadId, Frame frame, long keepsBytes, long references) {
    }

    /** A thread's frame: its method, the line it was at (-1: unknown), its depth, the local's slot. */
    public record Frame(@JsonProperty("class") String className, String method, int line, int depth, Integer slot) {
    }

    /**
     * An object on a path: its class, and how the object before it references it: a field, an array
     * element, or (via) one of a class's own references: classLoader, class (an object's class),
     * superclass, interface, protectionDomain, signers; or definedClass, a class its loader defined
     * (the JVM keeps those while the loader lives). classObjectOf names the class a
     * java.lang.Class on the path is (with {@code memory --classloaders}, classes are objects on paths).
     */
    public record Step(@JsonProperty("class") String className, String field, Integer fieldIndex, Integer arrayIndex, String via,
                       String classObjectOf) {
    }
}
