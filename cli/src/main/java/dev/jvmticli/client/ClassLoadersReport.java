package dev.jvmticli.client;

import java.util.List;

/**
 * The answer to {@code classloaders}: the walk's figures as {@code heap.paths} has them, each loader,
 * a path for each of the first dead-looking ones, and the text of the JVM's own VM.classloader_stats
 * and {@code VM.classloaders verbose fold=false} (run just before the walk; null with the reason
 * when the JVM's attach listener did not answer). safepoints is null when the JVM keeps no safepoint
 * times; threadsError is set when the platform threads' stacks could not be read (then no loader looks dead);
 * virtualThreads is null before JDK 21, where there are none.
 */
public record ClassLoadersReport(long elapsedNanos, HeapReport.Safepoints safepoints, long objects, long roots, long maxObjects,
                                 long agentBytes, long loadedClasses, String threadsError, VirtualThreads virtualThreads, List<Loader> loaders,
                                 List<DeadPath> deadPaths, String classLoaderStats, String classLoaderStatsError,
                                 String classLoaderTree, String classLoaderTreeError) {
    /**
     * A class loader. id is its number in this answer (0: the boot loader); parent the id of its
     * parent (0: the boot loader); loaderClassDefinedBy the id of the loader that defined its class.
     * classes counts the classes it defined but hidden classes and array classes, counted apart;
     * instances the reachable instances of its classes that something other than its own classes'
     * static fields holds (instancesHeldByOwnStatics the others); threads the threads, platform or
     * virtual, with one of its methods on their stack. reachable: the collector would keep it.
     * looksDead: a reachable loader the JDK does not keep itself, with classes, no instance held from
     * outside and no thread in its code; null when it would look dead but a thread's stack was not read.
     */
    public record Loader(long id, String loaderClass, Long loaderClassDefinedBy, String name, Long parent, boolean builtin,
                         long classes, long hiddenClasses, long arrayClasses, long instances, long instancesHeldByOwnStatics,
                         long threads, boolean reachable, Boolean looksDead) {
        public boolean saidDead() {
            return Boolean.TRUE.equals(looksDead);
        }
    }

    /**
     * The virtual threads' stacks, read after the walk, one GetStackTrace each (up to maxFrames frames):
     * found by the walk of the JDK's thread containers, read, ended before their stack was read,
     * pastBound (found past maxVirtualThreads, not read) and untracked (counted by the JDK, which
     * keeps no list of them with -Djdk.trackAllThreads=false: not read); how long the reads took and
     * the safepoints the JVM counted meanwhile (null when it keeps no safepoint times). error: why
     * they could not all be listed or read. Unless all were read, no loader looks dead.
     */
    public record VirtualThreads(long found, long read, long ended, long pastBound, long untracked, long maxVirtualThreads,
                                 long maxFrames, long elapsedNanos, HeapReport.Safepoints safepoints, String error) {
        public boolean allRead() {
            return error == null && pastBound == 0 && untracked == 0;
        }
    }

    /** The shortest path from a GC root to a dead-looking loader, as heap --paths writes one. */
    public record DeadPath(long loader, long length, HeapPathsReport.Root root, long stepsLeftOut, List<HeapPathsReport.Step> steps) {
    }
}
