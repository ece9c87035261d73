package dev.jvmticli.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jvmticli.client.Frame;
import dev.jvmticli.client.LockedMonitor;
import dev.jvmticli.client.StackDump;
import dev.jvmticli.client.ThreadEntry;
import dev.jvmticli.client.ThreadStack;
import dev.jvmticli.client.VirtualDump;
import dev.jvmticli.client.VirtualDump.VirtualStack;
import dev.jvmticli.client.WaitingFor;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class VirtualThreadsTest {
    private static final Frame RUN = new Frame("App", "run", "App.java", 7, false);
    private static final Frame CONTINUATION_RUN = new Frame("jdk.internal.vm.Continuation", "run", "Continuation.java", 248, false);
    private static final Frame AWAIT_WORK = new Frame("java.util.concurrent.ForkJoinPool", "awaitWork", "ForkJoinPool.java", 1893, false);
    private static final Frame YIELD = new Frame("java.lang.VirtualThread", "yieldContinuation", "VirtualThread.java", 537, false);
    private static final Frame PARK = new Frame("jdk.internal.misc.Unsafe", "park", null, -2, true);
    private static final Frame PARK_ON_CARRIER = new Frame("java.lang.VirtualThread", "parkOnCarrierThread", "VirtualThread.java", 819, false);

    private static ThreadEntry platform(long id) {
        return new ThreadEntry(id, "p" + id, "BLOCKED", List.of(), false, 5, "main", 0, 0, false, null);
    }

    private static ThreadEntry virtual(long id, Long carrier) {
        return new ThreadEntry(id, "", "BLOCKED", List.of(), true, 5, "VirtualThreads", -1, 0, false, null, true, carrier, false, null, null, null, null, null, false);
    }

    private static VirtualDump dump(VirtualStack... threads) {
        return new VirtualDump(0, List.of(threads), List.of(List.of(RUN)), "snapshot", true, true,
                new VirtualDump.Summary(threads.length, 0, 0, Map.of()), null);
    }

    @Test
    void ownersAreFoundAcrossKindsAndAVirtualOwnerWinsOverItsCarrier() {
        // p1 holds A and waits for B, which v10 holds while mounted on carrier p2 (ThreadMXBean named p2)
        ThreadStack p1 = new ThreadStack(platform(1), List.of(RUN), false, List.of(new LockedMonitor("java.lang.Object", 0xA, 0)),
                new WaitingFor("enter", "java.lang.Object", 0xB, 2));
        ThreadStack p2 = new ThreadStack(platform(2), List.of(CONTINUATION_RUN, RUN), false, List.of(), null);
        VirtualStack v10 = new VirtualStack(virtual(10, 2L), 0, null, false, List.of(new LockedMonitor("java.lang.Object", 0xB, 0)),
                new WaitingFor("enter", "java.lang.Object", 0xA, -1), false, false);
        VirtualStack v11 = new VirtualStack(virtual(11, null), null, List.of(), false, List.of(),
                new WaitingFor("notify", "java.lang.Object", 0xA, -1), false, false);
        StackDump merged = VirtualThreads.merge(new StackDump(5, "management", true, List.of(p1, p2)), dump(v11, v10));

        assertEquals(List.of(1L, 2L, 10L, 11L), merged.threads().stream().map(t -> t.thread().id()).toList());
        assertEquals(10L, merged.threads().get(0).waitingFor().ownerId(), "v10 owns B, not its carrier");
        assertEquals(10L, merged.threads().get(1).thread().carrying());
        assertNull(merged.threads().get(0).thread().carrying());
        assertEquals(1L, merged.threads().get(2).waitingFor().ownerId(), "p1 owns A");
        assertEquals(-1L, merged.threads().get(3).waitingFor().ownerId(), "Object.wait has no owner to find");
        assertSame(List.of(RUN).get(0), merged.threads().get(2).frames().get(0));
        assertEquals(List.of(1L, 10L), Deadlocks.find(merged).get(0).stream().map(t -> t.thread().id()).sorted().toList());
        assertEquals("management+snapshot", merged.lockSource());
    }

    /** A carrier carries what its own frames show: nothing in awaitWork, one not known when the walk found none on it. */
    @Test
    void aCarrierCarriesWhatItsOwnFramesShow() {
        ThreadStack idle = new ThreadStack(platform(2), List.of(PARK, AWAIT_WORK), false, List.of(), null);
        ThreadStack running = new ThreadStack(platform(3), List.of(CONTINUATION_RUN, RUN), false, List.of(), null);
        VirtualStack claimsIdle = new VirtualStack(virtual(10, 2L), 0, null, false, List.of(), null, false, false);
        StackDump merged = VirtualThreads.merge(new StackDump(5, "snapshot", true, List.of(idle, running)), dump(claimsIdle));
        assertNull(merged.threads().get(0).thread().carrying(), "waiting for work in awaitWork: carries nothing");
        assertTrue(!merged.threads().get(0).thread().mountUnsettled());
        assertNull(merged.threads().get(1).thread().carrying());
        assertTrue(merged.threads().get(1).thread().mountUnsettled(), "Continuation.run on its stack: carries one, not known which");
    }

    /** Pinned only while mounted and not yielding; parked on its carrier is pinned, whatever the JDK's state said a moment apart. */
    @Test
    void pinnedAsTheFramesOfTheSameMomentSay() {
        ThreadEntry pinnedMounted = virtual(10, 2L).pinned(true);
        assertTrue(!VirtualThreads.pinnedAsFramesSay(pinnedMounted, List.of(YIELD, RUN)).pinned(), "yielding its carrier");
        assertTrue(VirtualThreads.pinnedAsFramesSay(pinnedMounted, List.of(RUN)).pinned());
        assertTrue(!VirtualThreads.pinnedAsFramesSay(virtual(10, null).pinned(true), List.of(RUN)).pinned(), "not mounted");
        assertTrue(VirtualThreads.pinnedAsFramesSay(virtual(10, 2L), List.of(PARK, PARK_ON_CARRIER, RUN)).pinned(), "parked on its carrier");
        Frame initializer = new Frame("App$Holder", "<clinit>", "App.java", 3, false);
        assertTrue(VirtualThreads.pinnedAsFramesSay(virtual(10, 2L), List.of(RUN, initializer)).pinned(), "blocked in a class initializer");
        assertTrue(!VirtualThreads.pinnedAsFramesSay(virtual(10, 2L), List.of(RUN)).pinned(), "blocked on its way off its carrier");
    }

    @Test
    void aVirtualThreadThatNeverSettledStaysMarkedSo() {
        VirtualStack moving = new VirtualStack(virtual(12, null), 0, null, false, null, null, true, false);
        StackDump merged = VirtualThreads.merge(new StackDump(5, "management", true, List.of()), dump(moving));
        assertTrue(merged.threads().get(0).unsettled(), "its lock facts are not known, not known to be none");
    }
}
