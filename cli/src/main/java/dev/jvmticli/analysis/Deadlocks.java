package dev.jvmticli.analysis;

import dev.jvmticli.client.StackDump;
import dev.jvmticli.client.ThreadStack;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Cycles in the wait-for graph. A thread that is BLOCKED entering a monitor, or parked on an
 * ownable synchronizer, has one edge: to the thread that owns what it waits for. Each thread has
 * at most one edge, so every cycle is found by following edges from each thread once.
 */
public final class Deadlocks {
    private Deadlocks() {
    }

    /** Every cycle, each as its threads in wait order (each waits for the next; the last for the first). */
    public static List<List<ThreadStack>> find(StackDump dump) {
        Map<Long, ThreadStack> byId = new LinkedHashMap<>();
        dump.threads().forEach(t -> byId.put(t.thread().id(), t));
        Map<Long, Long> edges = new HashMap<>();
        for (ThreadStack t : dump.threads()) {
            if (t.waitingFor() != null && t.waitingFor().hasOwner() && !t.waitingFor().awaitsSignal()
                    && byId.containsKey(t.waitingFor().ownerId())) {
                edges.put(t.thread().id(), t.waitingFor().ownerId());
            }
        }
        List<List<ThreadStack>> cycles = new ArrayList<>();
        Set<Long> done = new HashSet<>();
        for (Long start : byId.keySet()) {
            List<Long> path = new ArrayList<>();
            Set<Long> onPath = new HashSet<>();
            Long current = start;
            while (current != null && !done.contains(current) && onPath.add(current)) {
                path.add(current);
                current = edges.get(current);
            }
            if (current != null && onPath.contains(current)) {
                List<ThreadStack> cycle = new ArrayList<>();
                for (Long id : path.subList(path.indexOf(current), path.size())) {
                    cycle.add(byId.get(id));
                }
                cycles.add(cycle);
            }
            done.addAll(path);
        }
        return cycles;
    }

    /** The ids of a cycle's threads, with the edges they had, for comparing two snapshots. */
    public static Map<Long, Long> edgesOf(List<ThreadStack> cycle) {
        Map<Long, Long> edges = new LinkedHashMap<>();
        cycle.forEach(t -> edges.put(t.thread().id(), t.waitingFor().ownerId()));
        return edges;
    }
}
