package dev.jvmticli.analysis;

import static dev.jvmticli.analysis.Dumps.enter;
import static dev.jvmticli.analysis.Dumps.holds;
import static dev.jvmticli.analysis.Dumps.notifyOn;
import static dev.jvmticli.analysis.Dumps.park;
import static dev.jvmticli.analysis.Dumps.thread;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.jvmticli.client.ThreadStack;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class DeadlocksTest {
    private static Set<Set<Long>> cycles(List<List<ThreadStack>> found) {
        return found.stream().map(c -> c.stream().map(t -> t.thread().id()).collect(Collectors.toSet())).collect(Collectors.toSet());
    }

    @Test
    void findsTwoAndThreeThreadCyclesOfMixedKinds() {
        var dump = Dumps.of(
                thread(1, "BLOCKED", enter(100, 2), holds(101)),
                thread(2, "BLOCKED", enter(101, 1), holds(100)),
                thread(3, "WAITING", park(200, 4), holds(300)),
                thread(4, "BLOCKED", enter(301, 5)),
                thread(5, "BLOCKED", enter(300, 3), holds(301)));
        assertEquals(Set.of(Set.of(1L, 2L), Set.of(3L, 4L, 5L)), cycles(Deadlocks.find(dump)));
        List<ThreadStack> ring = Deadlocks.find(dump).stream().filter(c -> c.size() == 3).findFirst().orElseThrow();
        for (int i = 0; i < ring.size(); i++) {
            assertEquals(ring.get((i + 1) % ring.size()).thread().id(), ring.get(i).waitingFor().ownerId(), "each waits for the next");
        }
    }

    @Test
    void aChainIntoACycleReportsOnlyTheCycle() {
        var dump = Dumps.of(
                thread(7, "BLOCKED", enter(100, 1)),
                thread(1, "BLOCKED", enter(100, 2), holds(101)),
                thread(2, "BLOCKED", enter(101, 1), holds(100)));
        assertEquals(Set.of(Set.of(1L, 2L)), cycles(Deadlocks.find(dump)));
    }

    @Test
    void aLongChainIntoACycleAtItsEndReportsTheCycleOnceInWaitOrder() {
        int length = 5000; // thread i waits for i + 1; the last waits for the one before it
        ThreadStack[] threads = new ThreadStack[length];
        for (int i = 0; i < length; i++) {
            long next = i + 1 < length ? i + 1 : length - 2;
            threads[length - 1 - i] = thread(i, "BLOCKED", enter(1000 + next, next), holds(1000 + i)); // listed last first
        }
        List<List<ThreadStack>> found = Deadlocks.find(Dumps.of(threads));
        assertEquals(1, found.size(), found.toString());
        List<Long> cycle = found.get(0).stream().map(t -> t.thread().id()).toList();
        assertEquals(Set.of((long) length - 2, (long) length - 1), Set.copyOf(cycle));
        assertEquals(cycle.get(1), found.get(0).get(0).waitingFor().ownerId(), "the first waits for the second");
    }

    @Test
    void contentionWaitsAndUnknownOwnersAreNoDeadlock() {
        var dump = Dumps.of(
                thread(1, "TIMED_WAITING", null, holds(100)),
                thread(2, "BLOCKED", enter(100, 1)),
                thread(3, "BLOCKED", enter(100, 1)),
                thread(4, "WAITING", notifyOn(400)),
                thread(5, "WAITING", park(500, -1)),
                thread(6, "BLOCKED", enter(600, 99)));
        assertEquals(List.of(), Deadlocks.find(dump));
    }

    @Test
    void aThreadWaitingInObjectWaitIsNotAnEdgeEvenWithAnOwnerId() {
        var dump = Dumps.of(
                thread(1, "WAITING", new dev.jvmticli.client.WaitingFor("notify", "java.lang.Object", 1, 2)),
                thread(2, "BLOCKED", enter(3, 1)));
        assertEquals(List.of(), Deadlocks.find(dump));
    }
}
