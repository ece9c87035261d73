package dev.jvmticli.analysis;

import static dev.jvmticli.analysis.Dumps.awaitSignal;
import static dev.jvmticli.analysis.Dumps.enter;
import static dev.jvmticli.analysis.Dumps.holds;
import static dev.jvmticli.analysis.Dumps.notifyOn;
import static dev.jvmticli.analysis.Dumps.park;
import static dev.jvmticli.analysis.Dumps.parkOn;
import static dev.jvmticli.analysis.Dumps.thread;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jvmticli.client.Frame;
import dev.jvmticli.client.LockRef;
import dev.jvmticli.client.LockedMonitor;
import dev.jvmticli.client.ThreadEntry;
import dev.jvmticli.client.ThreadStack;
import dev.jvmticli.client.WaitingFor;
import dev.jvmticli.render.MonitorsText;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LockTableTest {
    @Test
    void mostContendedFirstWithOwnersEnteringAndNotifyWaiters() {
        var dump = Dumps.of(
                thread(1, "TIMED_WAITING", null, holds(100)),
                thread(2, "BLOCKED", enter(100, 1)),
                thread(3, "BLOCKED", enter(100, 1)),
                thread(4, "WAITING", park(200, 1)),
                thread(5, "WAITING", notifyOn(300)));
        List<LockTable.Lock> locks = LockTable.of(dump);
        assertEquals(3, locks.size());
        assertEquals(100, locks.get(0).lock().hash());
        assertEquals(1, locks.get(0).owner().id());
        assertEquals(List.of(2L, 3L), locks.get(0).entering().stream().map(ThreadEntry::id).toList());
        assertEquals(200, locks.get(1).lock().hash());
        assertEquals(1, locks.get(1).owner().id(), "an ownable synchronizer's owner comes from the parked thread's facts");
        assertEquals(300, locks.get(2).lock().hash());
        assertNull(locks.get(2).owner());
        assertEquals(List.of(5L), locks.get(2).notifyWaiters().stream().map(ThreadEntry::id).toList());
    }

    /**
     * A thread in Object.wait on a monitor its facts do not name let go of one of those it entered: it
     * is owner of none; so a thread entering one of them is not told an owner that nobody could tell.
     */
    @Test
    void aThreadWaitingOnAnUnnamedMonitorIsNoOwner() {
        ThreadStack waiter = thread(1, "TIMED_WAITING", null, holds(100));
        var dump = Dumps.of(
                new ThreadStack(waiter.thread(), waiter.frames(), false, waiter.locked(), null, false, true),
                thread(2, "BLOCKED", new WaitingFor("enter", "java.lang.Object", 100, -1, null, true)));
        LockTable.Lock lock = LockTable.of(dump).get(0);
        assertEquals(100, lock.lock().hash());
        assertNull(lock.owner());
        assertTrue(lock.ownerUnknown());
        assertEquals(List.of(2L), lock.entering().stream().map(ThreadEntry::id).toList());
        StringWriter text = new StringWriter();
        MonitorsText.printByThread(new PrintWriter(text), dump);
        assertEquals(String.join(System.lineSeparator(),
                "\"t1\" #1 TIMED_WAITING",
                "  entered <0x0000000000000064> (a java.lang.Object) at:",
                "      frame 0: a.B.run(B.java:1)",
                "  waiting in Object.wait on a monitor the JVM does not name; it let go of that one, which may be one of those above,"
                        + " and owns the others",
                "\"t2\" #2 BLOCKED (on object monitor)",
                "  waiting to lock <0x0000000000000064> (a java.lang.Object), owner not known",
                ""), text.toString());
        StringWriter byLock = new StringWriter();
        MonitorsText.printByLock(new PrintWriter(byLock), LockTable.of(dump));
        assertTrue(byLock.toString().contains("  owner: not known"), byLock.toString());
        assertFalse(LockTable.of(Dumps.of(thread(3, "BLOCKED", enter(100, -1)))).get(0).ownerUnknown(), "told no owner: none");
    }

    /** Each thread's facts are of its own moment: waiters that name different owners, or one waiting itself, name no owner. */
    @Test
    void aLockThatChangedHandsWhileTheThreadsWereReadNamesNoOwner() {
        var dump = Dumps.of(
                thread(1, "BLOCKED", enter(100, 2)),
                thread(2, "BLOCKED", enter(100, 3)),
                thread(3, "BLOCKED", enter(100, 2)),
                thread(4, "TIMED_WAITING", null, holds(200)),
                thread(5, "BLOCKED", enter(200, 4)));
        LockTable.Lock changed = LockTable.of(dump).get(0);
        assertEquals(100, changed.lock().hash());
        assertNull(changed.owner());
        assertEquals(List.of(2L, 3L), changed.ownersSeen().stream().map(s -> s.thread().id()).toList());
        assertEquals(List.of(2, 1), changed.ownersSeen().stream().map(LockTable.Sighting::times).toList());
        StringWriter text = new StringWriter();
        MonitorsText.printByLock(new PrintWriter(text), LockTable.of(dump));
        assertTrue(text.toString().contains("  owner: changed hands while the threads were read; seen owning it, by how many threads:"
                + " \"t2\" #2 (2), \"t3\" #3 (1)" + System.lineSeparator()), text.toString());
        StringWriter byThread = new StringWriter();
        MonitorsText.printByThread(new PrintWriter(byThread), dump);
        assertTrue(byThread.toString().contains("  waiting to lock <0x0000000000000064> (a java.lang.Object), owned by \"t2\" #2"
                + " (whose own facts, of another moment, show it waiting for it too)" + System.lineSeparator()), byThread.toString());
        assertTrue(byThread.toString().contains("owned by \"t4\" #4" + System.lineSeparator()), byThread.toString());
        LockTable.Lock agreed = LockTable.of(dump).get(1);
        assertEquals(4, agreed.owner().id(), "its own facts and its waiter's agree");
        assertEquals(List.of(), agreed.ownersSeen());
        LockTable.Lock self = LockTable.of(Dumps.of(thread(1, "BLOCKED", enter(100, 2)), thread(2, "BLOCKED", enter(100, -1)))).get(0);
        assertNull(self.owner(), "named the owner by one thread, waiting for it in its own facts");
        assertEquals(1, self.ownersSeen().size());
    }

    @Test
    void locksRankByTheirWaitersAndIdleWaitsLast() {
        var dump = Dumps.of(
                thread(1, "WAITING", awaitSignal(400)),
                thread(2, "WAITING", awaitSignal(400)),
                thread(3, "WAITING", awaitSignal(400)),
                thread(4, "WAITING", parkOn(500)),
                thread(5, "TIMED_WAITING", null, holds(100)),
                thread(6, "BLOCKED", enter(100, 5)),
                idle(7, awaitSignal(600)), idle(8, awaitSignal(600)), idle(9, awaitSignal(600)), idle(10, awaitSignal(600)));
        List<LockTable.Lock> locks = LockTable.of(dump);
        LockTable.Lock condition = locks.get(0);
        assertEquals(400, condition.lock().hash(), "three waiting for a signal rank above one waiting to enter");
        assertEquals(0, condition.contention());
        assertNull(condition.owner(), "a ConditionObject has no owner");
        assertEquals(List.of(1L, 2L, 3L), condition.notifyWaiters().stream().map(ThreadEntry::id).toList());
        assertEquals(100, locks.get(1).lock().hash());
        assertEquals(1, locks.get(1).contention());
        LockTable.Lock future = locks.get(2);
        assertEquals(List.of(4L), future.parked().stream().map(ThreadEntry::id).toList());
        assertEquals(0, future.contention() + future.notifyWaiters().size(), "parked on a FutureTask: neither contending nor signalled");
        LockTable.Lock pool = locks.get(3);
        assertEquals(600, pool.lock().hash(), "an idle pool's four workers rank last");
        assertTrue(pool.idle());
        assertFalse(condition.idle() || locks.get(1).idle() || future.idle());
    }

    /**
     * Kafka's request handlers wait for the next request in their own loop (a queue's poll a frame
     * under their run): idle. Hikari's borrowers wait in a queue's poll too, but under the request's
     * code: not idle; nor is a handler that holds a monitor, or one another thread waits for.
     */
    @Test
    void aWorkerWaitingInItsOwnLoopIsIdleAndABorrowerIsNot() {
        WaitingFor queue = awaitSignal(700);
        List<Frame> handler = List.of(
                new Frame("jdk.internal.misc.Unsafe", "park", null, -2, true),
                new Frame("java.util.concurrent.locks.LockSupport", "parkNanos", "LockSupport.java", 269, false),
                new Frame("java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject", "awaitNanos", "AbstractQueuedSynchronizer.java", 1763, false),
                new Frame("java.util.concurrent.ArrayBlockingQueue", "poll", "ArrayBlockingQueue.java", 435, false),
                new Frame("kafka.network.RequestChannel", "receiveRequest", "RequestChannel.scala", 491, false),
                new Frame("kafka.server.KafkaRequestHandler", "run", "KafkaRequestHandler.scala", 110, false),
                new Frame("java.lang.Thread", "runWith", "Thread.java", 1596, false),
                new Frame("java.lang.Thread", "run", "Thread.java", 1583, false));
        List<Frame> reaper = List.of(
                new Frame("java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject", "awaitNanos", "AbstractQueuedSynchronizer.java", 1763, false),
                new Frame("java.util.concurrent.DelayQueue", "poll", "DelayQueue.java", 259, false),
                new Frame("org.apache.kafka.server.util.timer.SystemTimer", "advanceClock", "SystemTimer.java", 115, false),
                new Frame("org.apache.kafka.server.purgatory.DelayedOperationPurgatory$ExpiredOperationReaper", "doWork", "DelayedOperationPurgatory.java", 367, false),
                new Frame("org.apache.kafka.server.util.ShutdownableThread", "run", "ShutdownableThread.java", 136, false));
        List<Frame> borrower = List.of(
                new Frame("java.util.concurrent.locks.LockSupport", "parkNanos", "LockSupport.java", 269, false),
                new Frame("java.util.concurrent.SynchronousQueue$Transferer", "xferLifo", "SynchronousQueue.java", 213, false),
                new Frame("java.util.concurrent.SynchronousQueue", "poll", "SynchronousQueue.java", 368, false),
                new Frame("com.zaxxer.hikari.util.ConcurrentBag", "borrow", "ConcurrentBag.java", 159, false),
                new Frame("com.zaxxer.hikari.pool.HikariPool", "getConnection", "HikariPool.java", 162, false),
                new Frame("com.zaxxer.hikari.pool.HikariPool", "getConnection", "HikariPool.java", 144, false),
                new Frame("com.zaxxer.hikari.HikariDataSource", "getConnection", "HikariDataSource.java", 127, false),
                new Frame("shop.OrderService", "count", "OrderService.java", 20, false),
                new Frame("shop.Worker", "run", "Worker.java", 12, false),
                new Frame("java.lang.Thread", "run", "Thread.java", 1583, false));
        List<Frame> coordinator = List.of(
                new Frame("java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject", "await", "AbstractQueuedSynchronizer.java", 1625, false),
                new Frame("org.apache.kafka.coordinator.common.runtime.EventAccumulator", "take", "EventAccumulator.java", 185, false),
                new Frame("org.apache.kafka.coordinator.common.runtime.MultiThreadedEventProcessor$EventProcessorThread", "handleEvents",
                        "MultiThreadedEventProcessor.java", 142, false),
                new Frame("org.apache.kafka.coordinator.common.runtime.MultiThreadedEventProcessor$EventProcessorThread", "run",
                        "MultiThreadedEventProcessor.java", 183, false));
        List<Frame> replyWaiter = List.of(
                new Frame("java.util.concurrent.LinkedBlockingQueue", "take", "LinkedBlockingQueue.java", 435, false),
                new Frame("app.Client", "awaitReply", "Client.java", 30, false),
                new Frame("app.Client", "call", "Client.java", 20, false),
                new Frame("app.Handler", "handle", "Handler.java", 10, false),
                new Frame("app.Handler", "run", "Handler.java", 5, false));
        var dump = Dumps.of(
                withFrames(1, queue, handler, List.of()), withFrames(2, queue, handler, List.of()), withFrames(3, queue, handler, List.of()),
                withFrames(4, awaitSignal(800), reaper, List.of()),
                withFrames(5, awaitSignal(900), handler, List.of(holds(901))),
                withFrames(6, awaitSignal(1000), handler, List.of()), thread(7, "WAITING", park(1100, 6)),
                withFrames(8, awaitSignal(1200), borrower, List.of()),
                withFrames(9, awaitSignal(1300), replyWaiter, List.of()),
                withFrames(10, awaitSignal(1400), coordinator, List.of()),
                virtual(withFrames(11, awaitSignal(1500), handler, List.of())));
        Map<Long, LockTable.Lock> byHash = new HashMap<>();
        LockTable.of(dump).forEach(l -> byHash.put(l.lock().hash(), l));
        assertTrue(byHash.get(700L).idle(), "three request handlers waiting for the next request");
        assertTrue(byHash.get(800L).idle(), "a purgatory's reaper waiting for the next timer task");
        assertFalse(byHash.get(900L).idle(), "a handler holding a monitor");
        assertFalse(byHash.get(1000L).idle(), "a handler another thread waits for");
        assertFalse(byHash.get(1200L).idle(), "a request waiting for a pooled connection");
        assertFalse(byHash.get(1300L).idle(), "a request waiting for a reply, three frames under its run");
        assertTrue(byHash.get(1400L).idle(), "a coordinator's event processor waiting in its own queue's take");
        assertFalse(byHash.get(1500L).idle(), "a virtual thread runs one task: its wait is not a worker's rest");
        List<LockTable.Lock> ranked = LockTable.of(dump);
        assertEquals(List.of(false, false, false, false, false, false, false, true, true, true), ranked.stream().map(LockTable.Lock::idle).toList(),
                "the handlers' queue, with the most waiters, ranks below every lock waited on busily");
    }

    private static ThreadStack virtual(ThreadStack t) {
        ThreadEntry e = t.thread();
        return t.about(new ThreadEntry(e.id(), e.name(), e.state(), e.flags(), e.daemon(), e.priority(), e.group(), -1, 0, false, null,
                true, null, false, null, null, null, null, null, false));
    }

    private static ThreadStack withFrames(long id, WaitingFor wait, List<Frame> frames, List<LockedMonitor> locked) {
        ThreadStack t = thread(id, "WAITING", wait);
        return new ThreadStack(t.thread(), frames, false, locked, wait);
    }

    /** A pool's worker waiting for its next task. */
    private static ThreadStack idle(long id, WaitingFor wait) {
        ThreadStack t = thread(id, "WAITING", wait);
        List<Frame> frames = List.of(new Frame("java.util.concurrent.LinkedBlockingQueue", "take", "LinkedBlockingQueue.java", 435, false),
                new Frame("java.util.concurrent.ThreadPoolExecutor", "getTask", "ThreadPoolExecutor.java", 1070, false));
        return new ThreadStack(t.thread(), frames, false, List.of(), wait);
    }

    @Test
    void synchronizersAreListedUnderTheirOwnerOnce() {
        var dump = Dumps.of(
                thread(1, "WAITING", park(200, 9)),
                thread(2, "WAITING", park(200, 9)),
                thread(3, "WAITING", park(300, -1)));
        Map<Long, List<LockRef>> owned = LockTable.synchronizersByOwner(dump.threads());
        assertEquals(Map.of(9L, List.of(new LockRef("java.util.concurrent.locks.ReentrantLock$NonfairSync", 200))), owned);
    }
}
