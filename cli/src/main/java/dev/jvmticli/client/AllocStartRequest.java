package dev.jvmticli.client;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code alloc.start}: sample allocations, one per interval bytes on average; with live, follow the
 * sampled objects to the end (weak refs) and count the collections each survives. Made by
 * {@link #sampling}, then told the rest by name: {@code sampling(interval).withLive(true).withMinAge(2)}.
 *
 * @param interval                bytes between samples on average
 * @param live                    follow the sampled objects: what is still alive at stop
 * @param minAge                  with live: the collections an object must have survived to be reported
 * @param weakRefsClearedInPauses with live: whether the collector clears weak refs in a pause (each
 *                                collection counts once seen) or concurrently (once a later one is seen)
 * @param liveBudgetBytes         with live: the sampled bytes followed at once, at most
 * @param liveLargestBytes        with live: the largest sample followed (0: any)
 */
public record AllocStartRequest(long interval, boolean live, long minAge, boolean weakRefsClearedInPauses, long liveBudgetBytes,
                                long liveLargestBytes) implements AgentRequest {
    /** Allocation sampling alone; the live fields at the agent's defaults until asked for. */
    public static AllocStartRequest sampling(long interval) {
        return new AllocStartRequest(interval, false, 1, false, 0, 0);
    }

    public AllocStartRequest withLive(boolean with) {
        return new AllocStartRequest(interval, with, minAge, weakRefsClearedInPauses, liveBudgetBytes, liveLargestBytes);
    }

    public AllocStartRequest withMinAge(long collections) {
        return new AllocStartRequest(interval, live, collections, weakRefsClearedInPauses, liveBudgetBytes, liveLargestBytes);
    }

    public AllocStartRequest withWeakRefsClearedInPauses(boolean cleared) {
        return new AllocStartRequest(interval, live, minAge, cleared, liveBudgetBytes, liveLargestBytes);
    }

    public AllocStartRequest withLiveBudgetBytes(long bytes) {
        return new AllocStartRequest(interval, live, minAge, weakRefsClearedInPauses, bytes, liveLargestBytes);
    }

    public AllocStartRequest withLiveLargestBytes(long bytes) {
        return new AllocStartRequest(interval, live, minAge, weakRefsClearedInPauses, liveBudgetBytes, bytes);
    }

    @Override
    public String command() {
        return "alloc.start";
    }

    @Override
    public Map<String, Object> arguments() {
        Map<String, Object> arguments = new LinkedHashMap<>();
        arguments.put("interval", interval);
        if (live) {
            arguments.put("live", true);
            arguments.put("minAge", minAge);
            arguments.put("weakRefsClearedInPauses", weakRefsClearedInPauses);
            arguments.put("liveBudgetBytes", liveBudgetBytes);
            arguments.put("liveLargestBytes", liveLargestBytes);
        }
        return arguments;
    }
}
