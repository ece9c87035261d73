package dev.jvmticli.client;

import com.fasterxml.jackson.annotation.JsonIgnore;

/** A thread that runs on an OS thread of the target: a Java thread, or one of the JVM's own ({@link VmThread}). */
public sealed interface RunningThread permits ThreadEntry, VmThread {
    /** {@code java} or {@code vm}. */
    String kind();

    String name();

    /** java.lang.Thread.State name; null when the thread has none (a non-Java thread of the JVM). */
    String state();

    /** CPU time used, -1 when unknown. */
    long cpuNanos();

    /** The kernel's thread id, 0 when unknown. */
    long nid();

    /** What tells this thread apart from the target's other threads, in two answers of one session. */
    @JsonIgnore
    String identity();
}
