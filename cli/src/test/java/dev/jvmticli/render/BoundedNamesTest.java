package dev.jvmticli.render;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jvmticli.analysis.LockTable;
import dev.jvmticli.client.Frame;
import dev.jvmticli.client.Hello;
import dev.jvmticli.client.StackDump;
import dev.jvmticli.client.ThreadEntry;
import dev.jvmticli.client.ThreadStack;
import dev.jvmticli.client.WaitingFor;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/** A pool of 43 threads: every line that names threads names ten and counts the rest. */
class BoundedNamesTest {
    private static final StackDump POOL = new StackDump(0, "jvmti", true, LongStream.rangeClosed(1, 43)
            .mapToObj(id -> new ThreadStack(new ThreadEntry(id, "pool-" + id, "WAITING", List.of("parked"), true, 5, "main", -1, 0, false, null),
                    List.of(new Frame("jdk.internal.misc.Unsafe", "park", null, -2, true)), false, List.of(),
                    new WaitingFor("signal", "java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject", 0xc0, -1)))
            .toList());

    @Test
    void aGroupHeaderNamesTenThreads() {
        StringWriter text = new StringWriter();
        ThreadDumpText.printGroups(new PrintWriter(text), POOL, POOL.threads(), new Hello.Jvm("Test VM", "v", "17", "17", "mixed mode"));
        String header = text.toString().lines().filter(l -> l.startsWith("43 threads: ")).findFirst().orElseThrow();
        assertEquals(10, header.split("\"pool-", -1).length - 1, header);
        assertTrue(header.endsWith("\"pool-10\" #10, and 33 more"), header);
    }

    @Test
    void aLockTableLineNamesTenThreads() {
        StringWriter text = new StringWriter();
        MonitorsText.printByLock(new PrintWriter(text), LockTable.of(POOL));
        String waiting = text.toString().lines().filter(l -> l.startsWith("  waiting to be notified or signalled (43): ")).findFirst().orElseThrow();
        assertEquals(10, waiting.split("\"pool-", -1).length - 1, waiting);
        assertTrue(waiting.endsWith(", and 33 more"), waiting);
    }
}
