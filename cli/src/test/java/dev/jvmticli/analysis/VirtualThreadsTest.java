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

    private static ThreadEntry platform(long id) {
        return new ThreadEntry(id, "p" + id, "BLOCKED", List.of(), false, 5, "main", 0, 0, false, null);
    }

    private static ThreadEntry virtual(long id, Long carrier) {
        return new ThreadEntry(id, "", "BLOCKED", List.of(), true, 5, "VirtualThreads", -1, 0, false, null, true, carrier, false, null, null, null, null, null);
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
        ThreadStack p2 = new ThreadStack(platform(2), List.of(RUN), false, List.of(), null);
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

    @Test
    void aVirtualThreadThatNeverSettledStaysMarkedSo() {
        VirtualStack moving = new VirtualStack(virtual(12, null), 0, null, false, null, null, true, false);
        StackDump merged = VirtualThreads.merge(new StackDump(5, "management", true, List.of()), dump(moving));
        assertTrue(merged.threads().get(0).unsettled(), "its lock facts are not known, not known to be none");
    }
}
