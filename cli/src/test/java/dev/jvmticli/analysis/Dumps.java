package dev.jvmticli.analysis;

import dev.jvmticli.client.Frame;
import dev.jvmticli.client.LockedMonitor;
import dev.jvmticli.client.StackDump;
import dev.jvmticli.client.ThreadEntry;
import dev.jvmticli.client.ThreadStack;
import dev.jvmticli.client.WaitingFor;
import java.util.List;

/** Small hand-made dumps for the analysis tests. */
final class Dumps {
    private Dumps() {
    }

    static StackDump of(ThreadStack... threads) {
        return new StackDump(0, "management", true, List.of(threads));
    }

    static ThreadStack thread(long id, String state, WaitingFor wait, LockedMonitor... locked) {
        ThreadEntry entry = new ThreadEntry(id, "t" + id, state, List.of(), false, 5, "main", 0, 0, false, null);
        return new ThreadStack(entry, List.of(new Frame("a.B", "run", "B.java", (int) id, false)), false, List.of(locked), wait);
    }

    static WaitingFor enter(long hash, long owner) {
        return new WaitingFor("enter", "java.lang.Object", hash, owner);
    }

    static WaitingFor park(long hash, long owner) {
        return new WaitingFor("acquire", "java.util.concurrent.locks.ReentrantLock$NonfairSync", hash, owner);
    }

    static WaitingFor awaitSignal(long hash) {
        return new WaitingFor("signal", "java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject", hash, -1);
    }

    static WaitingFor parkOn(long hash) {
        return new WaitingFor("park", "java.util.concurrent.FutureTask", hash, -1);
    }

    static WaitingFor notifyOn(long hash) {
        return new WaitingFor("notify", "java.lang.Object", hash, -1);
    }

    static LockedMonitor holds(long hash) {
        return new LockedMonitor("java.lang.Object", hash, 0);
    }
}
