package dev.jvmticli.client;

import java.util.List;

/**
 * The answer to {@code jit}: the code the JVM has compiled or generated, as it stands.
 * codeListError is null when each piece of code's tier and entry were looked up in the JVM's own
 * code list, else why they could not be.
 */
public record JitReport(long pid, String perfMap, boolean following, long dropped, long unloaded, String codeListError,
                        List<Compiled> compiled, List<Stub> stubs, List<MethodRef> methods) {
    /**
     * A compiled method (index into methods) and the methods inlined into it. compileId and level
     * (0 a native wrapper, 1-3 C1, 4 C2) are null when the JVM's code list did not have this code;
     * entryBci is -1 for the method's normal entry, the bci of an OSR entry, or null when unknown.
     * inlinedPartial: the agent kept only part of the inlined methods (at most 128).
     */
    public record Compiled(int method, long start, long size, Integer compileId, Integer level, Integer entryBci,
                           List<Integer> inlined, boolean inlinedPartial) {
    }

    /** Code the JVM generated that is not a Java method: the interpreter, stubs, adapters. */
    public record Stub(String name, long start, long size) {
    }
}
