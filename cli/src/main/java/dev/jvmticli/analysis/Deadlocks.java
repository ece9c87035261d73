package dev.jvmticli.analysis;

import dev.jvmticli.client.StackDump;
import dev.jvmticli.client.ThreadStack;
import dev.jvmticli.client.WaitingFor;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Cycles in the wait-for graph. A thread that is BLOCKED entering a monitor, or parked on an
 * ownable synchronizer, has one edge: to the thread that owns what it waits for. Each thread has
 * at most one edge, so every cycle is found by following edges from each thread once.
 */
public final class Deadlocks {
    private static final byte ON_PATH = 1;
    private static final byte DONE = 2;

    private Deadlocks() {
    }

    /**
     * Every cycle, each as its threads in wait order (each waits for the next; the last for the
     * first). A dump names each thread once. Threads are numbered by their place in the dump, so
     * that the walk is over arrays: it runs at the end of every {@code stacks}, after the last thread
     * is read.
     */
    public static List<List<ThreadStack>> find(StackDump dump) {
        List<ThreadStack> threads = dump.threads();
        Map<Long, Integer> placeById = new HashMap<>(2 * threads.size());
        for (int i = 0; i < threads.size(); i++) {
            placeById.put(threads.get(i).thread().id(), i);
        }
        int[] waitsFor = new int[threads.size()]; // the place of the thread it waits for, or -1
        for (int i = 0; i < threads.size(); i++) {
            WaitingFor wait = threads.get(i).waitingFor();
            Integer owner = wait != null && wait.hasOwner() && !wait.awaitsSignal() ? placeById.get(wait.ownerId()) : null;
            waitsFor[i] = owner == null ? -1 : owner;
        }
        List<List<ThreadStack>> cycles = new ArrayList<>();
        byte[] seen = new byte[threads.size()]; // ON_PATH while the walk from the current start is on it, then DONE
        int[] path = new int[threads.size()];
        for (int start = 0; start < threads.size(); start++) {
            int length = 0;
            int current = start;
            while (current >= 0 && seen[current] == 0) {
                seen[current] = ON_PATH;
                path[length++] = current;
                current = waitsFor[current];
            }
            if (current >= 0 && seen[current] == ON_PATH) {
                int first = length - 1;
                while (path[first] != current) {
                    first--;
                }
                List<ThreadStack> cycle = new ArrayList<>();
                for (int k = first; k < length; k++) {
                    cycle.add(threads.get(path[k]));
                }
                cycles.add(cycle);
            }
            for (int k = 0; k < length; k++) {
                seen[path[k]] = DONE;
            }
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
