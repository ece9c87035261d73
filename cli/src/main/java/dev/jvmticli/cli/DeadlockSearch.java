package dev.jvmticli.cli;

import dev.jvmticli.analysis.Deadlocks;
import dev.jvmticli.client.AgentClient;
import dev.jvmticli.client.StackDump;
import dev.jvmticli.client.ThreadStack;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Finds deadlocks in a target: cheap first pass, confirmation, then stacks of the threads involved. */
final class DeadlockSearch {
    /** The confirmed cycles, and the stacks and lock facts of their threads. */
    record Result(List<List<ThreadStack>> cycles, StackDump stacks) {
        /** The cycles with each thread as its full entry from stacks. */
        List<List<ThreadStack>> detailed() {
            return cycles.stream()
                    .map(cycle -> cycle.stream()
                            .map(member -> stacks.threads().stream()
                                    .filter(t -> t.thread().id() == member.thread().id())
                                    .findFirst()
                                    .orElse(member))
                            .toList())
                    .toList();
        }
    }

    private DeadlockSearch() {
    }

    /** Platform threads, and virtual threads too when virtual and the target has them. */
    static Result run(AgentClient client, boolean virtual) {
        List<List<ThreadStack>> cycles = confirmed(client, Deadlocks.find(waits(client, null, virtual)), virtual);
        Set<Long> members = members(cycles);
        StackDump stacks = members.isEmpty() ? new StackDump(0, "", true, List.of())
                : Dumps.collect(client, Dumps.Request.of(members, MaxDepth.LIMIT).withOwned(true).withVirtual(virtual).withWaitingOnly(true));
        return new Result(cycles, stacks);
    }

    /** The ids of the cycles' threads. */
    static Set<Long> members(List<List<ThreadStack>> cycles) {
        Set<Long> members = new LinkedHashSet<>();
        cycles.forEach(cycle -> cycle.forEach(t -> members.add(t.thread().id())));
        return members;
    }

    /** Who waits for whom, without frames. */
    private static StackDump waits(AgentClient client, Set<Long> ids, boolean virtual) {
        return Dumps.collect(client, Dumps.Request.of(ids, 1).withFrames(false).withVirtual(virtual).withWaitingOnly(true));
    }

    /**
     * The candidates (cycles of a dump, see {@link Deadlocks#find}) that are deadlocks. A snapshot is
     * not atomic across threads, so a cycle could be assembled from moments that never coexisted. A
     * real deadlock does not move: keep only cycles whose every edge is still there when their
     * threads are asked again.
     */
    static List<List<ThreadStack>> confirmed(AgentClient client, List<List<ThreadStack>> candidates, boolean virtual) {
        if (candidates.isEmpty()) {
            return candidates;
        }
        Set<Long> ids = new LinkedHashSet<>();
        candidates.forEach(cycle -> cycle.forEach(t -> ids.add(t.thread().id())));
        List<Map<Long, Long>> stillThere = Deadlocks.find(waits(client, ids, virtual)).stream()
                .map(Deadlocks::edgesOf)
                .toList();
        List<List<ThreadStack>> confirmed = new ArrayList<>();
        for (List<ThreadStack> cycle : candidates) {
            if (stillThere.contains(Deadlocks.edgesOf(cycle))) {
                confirmed.add(cycle);
            }
        }
        return confirmed;
    }
}
