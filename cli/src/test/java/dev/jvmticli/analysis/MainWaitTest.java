package dev.jvmticli.analysis;

import static dev.jvmticli.analysis.Dumps.awaitSignal;
import static dev.jvmticli.analysis.Dumps.enter;
import static dev.jvmticli.analysis.Dumps.holds;
import static dev.jvmticli.analysis.Dumps.parkOn;
import static dev.jvmticli.analysis.Dumps.thread;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jvmticli.client.Frame;
import dev.jvmticli.client.LockRef;
import dev.jvmticli.client.StackDump;
import dev.jvmticli.client.ThreadEntry;
import dev.jvmticli.client.ThreadStack;
import dev.jvmticli.client.WaitingFor;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class MainWaitTest {
    /** A thread waiting alone on what nobody owns (its own events, a back-off) holds up nobody: no main wait. */
    @Test
    void aLoneWaitOnWhatNobodyOwnsIsNoMainWait() {
        var dump = Dumps.of(thread(1, "WAITING", awaitSignal(400)), thread(2, "TIMED_WAITING", parkOn(500)), thread(3, "RUNNABLE", null));
        assertTrue(MainWait.of(dump).isEmpty());
    }

    /** One thread waiting to enter a monitor another holds is held up: that is the main wait, above lone waits. */
    @Test
    void aLoneWaitForAnOwnerIsTheMainWait() {
        var dump = Dumps.of(thread(1, "WAITING", awaitSignal(400)), thread(2, "BLOCKED", enter(100, 3)),
                thread(3, "TIMED_WAITING", null, holds(100)));
        Optional<MainWait> wait = MainWait.of(dump);
        assertEquals(100, wait.orElseThrow().lock().lock().hash());
        assertEquals(3, wait.get().owner().thread().id());
    }

    /** Two threads waiting on the same condition are the main wait, though nobody owns it. */
    @Test
    void twoWaitingOnOneConditionAreTheMainWait() {
        var dump = Dumps.of(thread(1, "WAITING", awaitSignal(400)), thread(2, "WAITING", awaitSignal(400)), thread(3, "WAITING", awaitSignal(500)));
        assertEquals(400, MainWait.of(dump).orElseThrow().lock().lock().hash());
    }

    /**
     * The wait on one blocker contention saw parked on, a pool's queue nobody owns: its waiters, and as
     * holders the threads inside the nearest application frame under the waiters' caller that others
     * are inside too and waiting for nothing (the borrower sleeping with its connection), not one
     * elsewhere, nor one waiting in the same code. A lone waiter counts here; a blocker nobody waits
     * on in the dump gives nothing.
     */
    @Test
    void theWaitOnABlockerNamesThoseInsideTheSameCallerNotWaiting() {
        WaitingFor queue = new WaitingFor("park", "java.util.concurrent.SynchronousQueue$Transferer", 700, -1);
        List<Frame> borrowing = List.of(frame("java.util.concurrent.locks.LockSupport", "parkNanos"),
                frame("java.util.concurrent.SynchronousQueue", "poll"), frame("com.pool.Bag", "borrow"), frame("com.pool.Pool", "get"),
                frame("app.Orders", "count"), frame("java.lang.Thread", "run"));
        List<Frame> holding = List.of(frame("java.lang.Thread", "sleep"), frame("app.Orders", "count"), frame("java.lang.Thread", "run"));
        StackDump dump = Dumps.of(stack(1, "TIMED_WAITING", borrowing, queue), stack(2, "TIMED_WAITING", borrowing, queue),
                stack(3, "TIMED_WAITING", holding, null), stack(4, "RUNNABLE", List.of(frame("app.Other", "run")), null));
        MainWait wait = MainWait.on(dump, new LockRef(queue.className(), queue.hash())).orElseThrow();
        assertEquals(List.of(1L, 2L), wait.waiters().stream().map(t -> t.thread().id()).toList());
        assertEquals("com.pool.Bag", wait.callerFrame().className());
        assertEquals("app.Orders", wait.sharedFrame().className());
        assertEquals(List.of(3L), wait.inside().stream().map(t -> t.thread().id()).toList());

        StackDump alone = Dumps.of(stack(1, "TIMED_WAITING", borrowing, queue), stack(3, "TIMED_WAITING", holding, null));
        assertTrue(MainWait.of(alone).isEmpty(), "a lone wait on what nobody owns is no main wait");
        assertEquals(List.of(3L), MainWait.on(alone, new LockRef(queue.className(), queue.hash())).orElseThrow().inside().stream()
                .map(t -> t.thread().id()).toList());
        assertTrue(MainWait.on(dump, new LockRef(queue.className(), 701)).isEmpty());

        // a borrower caught passing through the pool's code, between its queue and the code it borrowed for: the nearest
        // frame, and the deeper one with more threads inside kept; read again together, it has moved on, and the holders are there
        ThreadStack passing = stack(5, "RUNNABLE", List.of(frame("com.pool.Pool", "get"), frame("app.Orders", "count"),
                frame("java.lang.Thread", "run")), null);
        MainWait through = MainWait.on(Dumps.of(stack(1, "TIMED_WAITING", borrowing, queue), stack(3, "TIMED_WAITING", holding, null), passing),
                new LockRef(queue.className(), queue.hash())).orElseThrow();
        assertEquals("com.pool.Pool", through.sharedFrame().className());
        assertEquals(List.of("app.Orders"), through.deeper().stream().map(d -> d.frame().className()).toList());
        MainWait.Shared together = through.insideOf(List.of(stack(3, "TIMED_WAITING", holding, null), stack(5, "TIMED_WAITING", holding, null)));
        assertEquals("app.Orders", together.frame().className());
        assertEquals(List.of(3L, 5L), together.inside().stream().map(t -> t.thread().id()).toList());
        assertEquals(List.of(), through.insideOf(List.of(stack(3, "RUNNABLE", List.of(frame("app.Other", "run")), null))).inside());
    }

    private static Frame frame(String className, String method) {
        return new Frame(className, method, null, 1, false);
    }

    private static ThreadStack stack(long id, String state, List<Frame> frames, WaitingFor wait) {
        return new ThreadStack(new ThreadEntry(id, "t" + id, state, List.of(), false, 5, "main", 0, 0, false, null), frames, false, List.of(), wait);
    }
}
