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
 * @param error         why the stacks could not be had, or null
 */
public record ProfileReport(String event, String engine, long intervalNanos, String profiler, long durationNanos,
                            List<String> collapsed, long droppedStacks, String error) {
}
