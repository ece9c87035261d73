package dev.jvmticli.client;

import java.util.List;

/** The answer to {@code jit}: the code the JVM has compiled or generated, as it stands. */
public record JitReport(long pid, String perfMap, boolean following, long dropped, long unloaded,
                        List<Compiled> compiled, List<Stub> stubs, List<MethodRef> methods) {
    /** A compiled method (index into methods) and the methods inlined into it. */
    public record Compiled(int method, long start, long size, List<Integer> inlined) {
    }

    /** Code the JVM generated that is not a Java method: the interpreter, stubs, adapters. */
    public record Stub(String name, long start, long size) {
    }
}
