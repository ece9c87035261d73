package dev.jvmticli.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.jvmticli.client.Frame;
import dev.jvmticli.client.LockRef;
import dev.jvmticli.client.OwnedSynchronizers;
import dev.jvmticli.client.OwnedSynchronizers.Owned;
import dev.jvmticli.client.StackDump;
import dev.jvmticli.client.ThreadEntry;
import dev.jvmticli.client.ThreadStack;
import dev.jvmticli.client.WaitingFor;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class OwnableSynchronizersTest {
    private static final String LOCK = "java.util.concurrent.locks.ReentrantLock$NonfairSync";
    private static final String RAN = "the thread ran while the heap was walked";
    private static final String NO_CPU = "no CPU time tells whether the thread ran while the heap was walked";

    private static ThreadStack thread(long id, long cpuNanos, boolean agent, boolean virtual, WaitingFor waitingFor) {
        String state = waitingFor == null ? "RUNNABLE" : waitingFor.kind().equals("enter") ? "BLOCKED" : "WAITING";
        ThreadEntry entry = new ThreadEntry(id, "t" + id, state, List.of(), false, 5, "main", cpuNanos, 0, agent, null, virtual,
                null, false, null, null, null, null, null, false);
        return new ThreadStack(entry, List.of(new Frame("a.B", "run", "B.java", 1, false)), false, List.of(), waitingFor);
    }

    private static ThreadStack thread(long id, long cpuNanos) {
        return thread(id, cpuNanos, false, false, null);
    }

    private static StackDump dump(ThreadStack... threads) {
        return new StackDump(0, "jvmti", true, List.of(threads));
    }

    private static WaitingFor parkedOn(long hash, long owner) {
        return new WaitingFor("acquire", LOCK, hash, owner);
    }

    private static OwnedSynchronizers walk() {
        return new OwnedSynchronizers(true, 3, 100, List.of(new Owned(1, LOCK, 0x10), new Owned(2, LOCK, 0x20), new Owned(5, LOCK, 0x50)));
    }

    @Test
    void aThreadKeepsTheWalksListOnlyWhenItsCpuTimeSaysItDidNotRun() {
        OwnableSynchronizers found = OwnableSynchronizers.of(walk(), dump(thread(1, 500), thread(2, 700), thread(3, 300),
                thread(4, 400), thread(5, 9, true, false, null), thread(6, -1)), Map.of(1L, 500L, 2L, 701L, 3L, -1L, 5L, 9L), Set.of());
        assertEquals(List.of(new LockRef(LOCK, 0x10)), found.of(1));
        assertNull(found.notKnownWhy(1));
        assertEquals(List.of(), found.of(2), "the walk's list of a thread that ran is of another moment");
        assertEquals(Map.of(2L, RAN, 3L, NO_CPU, 4L, "the thread ended while the heap was walked", 6L, NO_CPU), found.notKnown());
        assertEquals(List.of(new LockRef(LOCK, 0x50)), found.of(5), "the agent's own thread owns what the walk says");
        assertNull(found.partialBecause());
    }

    @Test
    void withoutCpuTimesAfterTheWalkNoThreadsListIsKnown() {
        OwnableSynchronizers found = OwnableSynchronizers.of(walk(), dump(thread(1, 500), thread(2, 700)), null, Set.of());
        assertEquals(Map.of(1L, NO_CPU, 2L, NO_CPU), found.notKnown());
        assertEquals(Map.of(5L, List.of(new LockRef(LOCK, 0x50))), found.byOwner());
    }

    @Test
    void aThreadThatRanInsideTheJvmOnlyKeepsItsList() {
        WaitingFor enterSleepersMonitor = new WaitingFor("enter", "java.lang.Object", 0x70, 7);
        WaitingFor enterRunnersMonitor = new WaitingFor("enter", "java.lang.Object", 0x80, 8);
        StackDump dump = dump(thread(1, 500, false, false, new WaitingFor("enter", "java.lang.Object", 0x90, 2)),
                thread(2, 600, false, false, new WaitingFor("enter", "java.lang.Object", 0x91, 1)),
                thread(3, 700, false, false, enterSleepersMonitor), thread(4, 700, false, false, new WaitingFor("enter", "java.lang.Object", 0x71, 3)),
                thread(5, 800, false, false, enterRunnersMonitor), thread(6, 900, false, false, new WaitingFor("enter", "java.lang.Object", 0x92, 6)),
                thread(7, 100), thread(8, 200));
        Map<Long, Long> after = Map.of(1L, 501L, 2L, 601L, 3L, 701L, 4L, 701L, 5L, 801L, 6L, 901L, 7L, 100L, 8L, 201L);
        OwnableSynchronizers found = OwnableSynchronizers.of(walk(), dump, after, Set.of(1L, 2L));
        assertEquals(List.of(new LockRef(LOCK, 0x10)), found.of(1), "a deadlocked thread that spun keeps its list");
        assertNull(found.notKnownWhy(3), "blocked on the monitor of a thread that did not run");
        assertNull(found.notKnownWhy(4), "blocked on the monitor of such a thread");
        assertEquals(Map.of(5L, RAN, 6L, RAN, 8L, RAN), found.notKnown(),
                "blocked on the monitor of a thread that ran, or said to own its own monitor, or ran");
    }

    @Test
    void aSynchronizerAThreadIsParkedOnIsItsOwnersWhenTheOwnerDidNotRunAndTheParkerIsAPlatformThread() {
        StackDump dump = dump(thread(1, 500), thread(2, 700), thread(3, 800),
                thread(11, 1, false, false, parkedOn(0x10, 1)), thread(12, 1, false, false, parkedOn(0x20, 2)),
                thread(13, -1, false, true, parkedOn(0x30, 3)));
        OwnableSynchronizers found = OwnableSynchronizers.parkedOn(dump, Map.of(1L, 500L, 2L, 900L, 3L, 800L), Set.of(), "no heap walk");
        assertEquals(Map.of(1L, List.of(new LockRef(LOCK, 0x10))), found.byOwner(),
                "a virtual thread's look at the owner is of another answer than the owner's CPU time");
        assertEquals(Map.of(2L, "the thread ran while the other threads were looked at"), found.notKnown());
        assertEquals("no heap walk", found.partialBecause());
    }
}
