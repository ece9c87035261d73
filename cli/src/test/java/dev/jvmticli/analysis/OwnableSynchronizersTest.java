package dev.jvmticli.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.jvmticli.client.Frame;
import dev.jvmticli.client.LockRef;
import dev.jvmticli.client.OwnedSynchronizers;
import dev.jvmticli.client.OwnedSynchronizers.Owned;
import dev.jvmticli.client.OwnedSynchronizers.ThreadCpu;
import dev.jvmticli.client.StackDump;
import dev.jvmticli.client.ThreadEntry;
import dev.jvmticli.client.ThreadStack;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class OwnableSynchronizersTest {
    private static final String LOCK = "java.util.concurrent.locks.ReentrantLock$NonfairSync";

    private static ThreadStack thread(long id, long cpuNanos, boolean agent) {
        ThreadEntry entry = new ThreadEntry(id, "t" + id, "RUNNABLE", List.of(), false, 5, "main", cpuNanos, 0, agent, null);
        return new ThreadStack(entry, List.of(new Frame("a.B", "run", "B.java", 1, false)), false, List.of(), null);
    }

    private static OwnableSynchronizers walk(List<ThreadCpu> cpuAfter, ThreadStack... threads) {
        List<Owned> owned = List.of(new Owned(1, LOCK, 0x10), new Owned(2, LOCK, 0x20), new Owned(5, LOCK, 0x50));
        return OwnableSynchronizers.of(new OwnedSynchronizers(true, 3, 100, owned, cpuAfter), new StackDump(0, "jvmti", true, List.of(threads)));
    }

    @Test
    void aThreadKeepsTheWalksListOnlyWhenItsCpuTimeSaysItDidNotRun() {
        OwnableSynchronizers found = walk(List.of(new ThreadCpu(1, 500), new ThreadCpu(2, 701), new ThreadCpu(3, -1), new ThreadCpu(5, 9)),
                thread(1, 500, false), thread(2, 700, false), thread(3, 300, false), thread(4, 400, false), thread(5, 9, true),
                thread(6, -1, false));
        assertEquals(List.of(new LockRef(LOCK, 0x10)), found.of(1));
        assertNull(found.notKnownWhy(1));
        assertEquals(List.of(), found.of(2), "the walk's list of a thread that ran is of another moment");
        assertEquals(Map.of(2L, "the thread ran while the heap was walked",
                3L, "no CPU time tells whether the thread ran while the heap was walked",
                4L, "the thread ended while the heap was walked",
                6L, "no CPU time tells whether the thread ran while the heap was walked"), found.notKnown());
        assertEquals(List.of(new LockRef(LOCK, 0x50)), found.of(5), "the agent's own thread owns what the walk says");
        assertNull(found.partialBecause());
    }

    @Test
    void withoutCpuTimesAfterTheWalkNoThreadsListIsKnown() {
        OwnableSynchronizers found = walk(null, thread(1, 500, false), thread(2, 700, false));
        assertEquals(Map.of(1L, "no CPU time tells whether the thread ran while the heap was walked",
                2L, "no CPU time tells whether the thread ran while the heap was walked"), found.notKnown());
        assertEquals(Map.of(5L, List.of(new LockRef(LOCK, 0x50))), found.byOwner());
    }
}
