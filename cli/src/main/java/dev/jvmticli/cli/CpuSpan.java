package dev.jvmticli.cli;

import dev.jvmticli.client.CpuRead;

/**
 * The span between two CPU readings of a target's threads: the target's own, from the start of the agent's
 * first reading to the start of its second (CpuRead); where an answer carries no usable stamps, the CLI's
 * from asking for the first to asking for the second, which the agent's reads lie somewhere after.
 */
record CpuSpan(long nanos, boolean fromAgent) {
    static final String FROM_CLI = "The agent's answers carry no time of their CPU reads: the span is the CLI's, from one ask to the next.";

    static CpuSpan between(CpuRead first, CpuRead second, long firstAskedAt, long secondAskedAt) {
        return CpuRead.span(first, second).stream().mapToObj(nanos -> new CpuSpan(nanos, true)).findFirst()
                .orElseGet(() -> new CpuSpan(secondAskedAt - firstAskedAt, false));
    }

    long millis() {
        return nanos / 1_000_000;
    }
}
