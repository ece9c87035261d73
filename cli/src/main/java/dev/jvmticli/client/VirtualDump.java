package dev.jvmticli.client;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;
import java.util.Map;

/**
 * The answer to {@code vthreads}: the target's virtual threads.
 *
 * @param threads           each virtual thread; empty when only the summary was asked for
 * @param stacks            the distinct stacks, referred to by index from {@link VirtualStack#stack()}
 * @param lockSource        {@code snapshot} (jdk.internal.vm.ThreadSnapshot, JDK 25+: monitors owned
 *                          and waited for) or {@code parked-only} (before JDK 25: only park blockers)
 * @param lockFactsComplete false when some lock facts could not be collected
 * @param complete          false when the walk of the thread containers failed part way
 * @param found             how many virtual threads there are, those not asked for included: met by the
 *                          walk, or (mountedOnly, no carrier with one mounted) the root container's
 *                          as the JDK counts them; null from an agent that does not say
 */
public record VirtualDump(long time, List<VirtualStack> threads, List<List<Frame>> stacks, String lockSource,
                          boolean lockFactsComplete, boolean complete, Summary summary, Long found) {
    public VirtualDump {
        threads = threads == null ? List.of() : threads;
        stacks = stacks == null ? List.of() : stacks;
    }

    /** Counts over every virtual thread found. */
    public record Summary(long count, long mounted, long pinned, Map<String, Long> byState) {
    }

    /**
     * One virtual thread.
     *
     * @param stack  index of its stack in {@link VirtualDump#stacks()}, or null when given in frames
     * @param frames    its frames, when not shared through stacks; null when frames were not asked for
     * @param unsettled as {@link ThreadStack#unsettled()}: locked and waitingFor are then left out
     * @param waitUnnamed as {@link ThreadStack#waitUnnamed()}
     */
    public record VirtualStack(ThreadEntry thread, Integer stack, List<Frame> frames, boolean truncated,
                               List<LockedMonitor> locked, WaitingFor waitingFor,
                               @JsonInclude(JsonInclude.Include.NON_DEFAULT) boolean unsettled,
                               @JsonInclude(JsonInclude.Include.NON_DEFAULT) boolean waitUnnamed) {
    }
}
