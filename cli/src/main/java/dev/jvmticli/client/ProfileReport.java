package dev.jvmticli.client;

import java.util.List;

/**
 * The answer to {@code profile.stop}: async-profiler's collapsed stacks, one line per distinct
 * (thread, stack): {@code [thread name tid=N];outermost;...;innermost COUNT}, each Java frame
 * annotated with its kind ({@code _[0]} interpreted, {@code _[1]} C1, {@code _[j]} JIT compiled,
 * {@code _[i]} inlined), kernel frames with {@code _[k]}, native ones bare.
 *
 * @param event         the event sampled: cpu, wall, itimer or ctimer
 * @param engine        the engine async-profiler ran it with (perf_events, ctimer, ...); null when it could not be asked
 * @param profiler      the async-profiler version
 * @param droppedStacks stacks left out for their length (longer than the agent's line buffer)
 * @param ownWork       what the agent keeps of its own work while the profile ran
 * @param error         why the stacks could not be had, or null
 */
public record ProfileReport(String event, String engine, long intervalNanos, String profiler, long durationNanos,
                            List<String> collapsed, long droppedStacks, OwnWork ownWork, String error) {
    /**
     * The agent's own work during the profile.
     *
     * @param agentTid       the OS thread id of the agent's thread: every sample of it is the tool's
     * @param requests       the agent's requests answered while the profile ran (the profile's own not counted)
     * @param requestNanos   how long they took, together
     * @param vmThreadStacks the VM thread's samples taken while those requests ran, per collapsed stack
     *                       (as in {@code collapsed}, without the count)
     * @param lostSamples    samples of the VM thread the agent could not keep by stack (its table was full)
     * @param unreadRequests requests whose VM-thread samples could not be read (a dump before or after failed)
     */
    public record OwnWork(long agentTid, long requests, long requestNanos, List<VmThreadStack> vmThreadStacks, long lostSamples,
                          long unreadRequests) {
        public OwnWork {
            vmThreadStacks = vmThreadStacks == null ? List.of() : vmThreadStacks;
        }
    }

    /** A stack of the VM thread and its samples. */
    public record VmThreadStack(String stack, long samples) {
    }
}
