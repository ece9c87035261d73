package dev.jvmticli.render;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jvmticli.analysis.OwnableSynchronizers;
import dev.jvmticli.client.Frame;
import dev.jvmticli.client.Hello;
import dev.jvmticli.client.LockRef;
import dev.jvmticli.client.LockedMonitor;
import dev.jvmticli.client.StackDump;
import dev.jvmticli.client.ThreadEntry;
import dev.jvmticli.client.ThreadStack;
import dev.jvmticli.client.WaitingFor;
import dev.jvmticli.testing.DumpConsistency;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.Map;
import java.util.TimeZone;
import org.junit.jupiter.api.Test;

class ThreadDumpTextTest {
    @Test
    void printsJstackShapedThreadsWithLockLinesUnderTheirFrames() {
        ThreadEntry owner = new ThreadEntry(7, "owner", "TIMED_WAITING", List.of("sleeping"), false, 5, "main", 1_500_000, 0x1f, false, null);
        ThreadEntry waiter = new ThreadEntry(8, "wait\"er", "WAITING", List.of("parked"), true, 5, "main", -1, 0, false, null);
        StackDump dump = new StackDump(0, "jvmti", true, List.of(
                new ThreadStack(owner, List.of(
                        new Frame("java.lang.Thread", "sleep", null, -2, true),
                        new Frame("a.B", "hold", "B.java", 12, false),
                        new Frame("a.B", "run", null, -1, false)), false,
                        List.of(new LockedMonitor("java.lang.Object", 0xabc, 1)), null),
                new ThreadStack(waiter, List.of(new Frame("jdk.internal.misc.Unsafe", "park", "Unsafe.java", -2, true)), true,
                        List.of(), new WaitingFor("park", "java.util.concurrent.locks.ReentrantLock$NonfairSync", 0xdef, 7))));
        StringWriter text = new StringWriter();
        TimeZone saved = TimeZone.getDefault();
        TimeZone.setDefault(TimeZone.getTimeZone("UTC"));
        try {
            ThreadDumpText.print(new PrintWriter(text), dump, dump.threads(), new Hello.Jvm("Test VM", "v", "17.0.1", "17", "mixed mode"),
                    OwnableSynchronizers.parkedOn(dump, null));
        } finally {
            TimeZone.setDefault(saved);
        }
        assertEquals(String.join("\n",
                "1970-01-01 00:00:00",
                "Full thread dump Test VM (17.0.1 mixed mode):",
                "",
                "\"owner\" #7 prio=5 cpu=1.50ms nid=0x1f waiting on condition",
                "   java.lang.Thread.State: TIMED_WAITING (sleeping)",
                "\tat java.lang.Thread.sleep(Native Method)",
                "\tat a.B.hold(B.java:12)",
                "\t- locked <0x0000000000000abc> (a java.lang.Object)",
                "\tat a.B.run(Unknown Source)",
                "",
                "   Locked ownable synchronizers:",
                "\t- <0x0000000000000def> (a java.util.concurrent.locks.ReentrantLock$NonfairSync)",
                "",
                "\"wait\"er\" #8 daemon prio=5 waiting on condition",
                "   java.lang.Thread.State: WAITING (parking)",
                "\tat jdk.internal.misc.Unsafe.park(Native Method)",
                "\t- parking to wait for  <0x0000000000000def> (a java.util.concurrent.locks.ReentrantLock$NonfairSync)",
                "\t- owned by \"owner\" #7",
                "\t...",
                "",
                "   Locked ownable synchronizers:",
                "\t- None",
                "",
                ""), text.toString());
    }

    @Test
    void aPartialSynchronizerListSaysSoInsteadOfNone() {
        ThreadEntry a = new ThreadEntry(1, "a", "RUNNABLE", List.of(), false, 5, "main", -1, 0, false, null);
        ThreadEntry b = new ThreadEntry(2, "b", "RUNNABLE", List.of(), false, 5, "main", -1, 0, false, null);
        StackDump dump = new StackDump(0, "jvmti", true, List.of(new ThreadStack(a, List.of(), false, List.of(), null),
                new ThreadStack(b, List.of(), false, List.of(), null)));
        LockRef lock = new LockRef("java.util.concurrent.locks.ReentrantLock$NonfairSync", 0xdef);
        StringWriter text = new StringWriter();
        ThreadDumpText.print(new PrintWriter(text), dump, dump.threads(), new Hello.Jvm("Test VM", "v", "17.0.1", "17", "mixed mode"),
                new OwnableSynchronizers(Map.of(1L, List.of(lock)), "the heap walk failed"));
        String out = text.toString();
        assertFalse(out.contains("None"), out);
        assertTrue(out.contains("   Locked ownable synchronizers:\n\t- <0x0000000000000def> (a java.util.concurrent.locks.ReentrantLock$NonfairSync)\n"
                + "\t- (others not known: the heap walk failed)\n"), out);
        assertTrue(out.contains("   Locked ownable synchronizers:\n\t- (not known: the heap walk failed)\n"), out);
    }

    @Test
    void theHeaderEndsWithHotSpotsWordsForTheOsThreadWhereKnown() {
        ThreadEntry known = new ThreadEntry(2, "Reference Handler", "RUNNABLE", List.of(), true, 10, "system", 350_000, 0x63c9,
                false, null, false, null, false, null, "waiting on condition", "0x00007fe4500f83e0");
        ThreadEntry unknown = new ThreadEntry(2, "Reference Handler", "RUNNABLE", List.of(), true, 10, "system", 350_000, 0x63c9,
                false, null);
        assertEquals("\"Reference Handler\" #2 daemon prio=10 cpu=0.35ms nid=0x63c9 waiting on condition", ThreadDumpText.header(known));
        assertEquals("\"Reference Handler\" #2 daemon prio=10 cpu=0.35ms nid=0x63c9 runnable", ThreadDumpText.header(unknown));
    }

    @Test
    void saysWhyAThreadThatNeverSettledHasNoLockLines() {
        ThreadEntry mover = new ThreadEntry(9, "mover", "BLOCKED", List.of(), false, 5, "main", -1, 0, false, null);
        ThreadStack unsettled = new ThreadStack(mover, List.of(new Frame("a.B", "enter", "B.java", 20, false)), false,
                null, null, true);
        StringWriter text = new StringWriter();
        ThreadDumpText.printThread(new PrintWriter(text), unsettled, Map.of());
        assertEquals(String.join(System.lineSeparator(),
                "\"mover\" #9 prio=5 waiting for monitor entry",
                "   java.lang.Thread.State: BLOCKED (on object monitor)",
                "   Lock lines left out: the thread kept moving while they were read",
                "\tat a.B.enter(B.java:20)",
                ""), text.toString());
        assertEquals(List.of("\"mover\" BLOCKED (on object monitor) at a.B.enter"),
                DumpConsistency.unsettledThreads(text.toString()));
    }
}
