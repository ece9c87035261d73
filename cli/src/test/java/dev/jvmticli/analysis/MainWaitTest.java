package dev.jvmticli.analysis;

import static dev.jvmticli.analysis.Dumps.awaitSignal;
import static dev.jvmticli.analysis.Dumps.enter;
import static dev.jvmticli.analysis.Dumps.holds;
import static dev.jvmticli.analysis.Dumps.parkOn;
import static dev.jvmticli.analysis.Dumps.thread;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
}
