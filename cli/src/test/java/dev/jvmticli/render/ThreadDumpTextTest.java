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
import java.util.Set;
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
                    OwnableSynchronizers.parkedOn(dump, Map.of(7L, 1_500_000L), Set.of(), null));
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
                new OwnableSynchronizers(Map.of(1L, List.of(lock)), "the heap walk failed", Map.of()));
        String out = text.toString();
        assertFalse(out.contains("None"), out);
        assertTrue(out.contains("   Locked ownable synchronizers:\n\t- <0x0000000000000def> (a java.util.concurrent.locks.ReentrantLock$NonfairSync)\n"
                + "\t- (others not known: the heap walk failed)\n"), out);
        assertTrue(out.contains("   Locked ownable synchronizers:\n\t- (not known: the heap walk failed)\n"), out);
    }

    @Test
    void aThreadWhoseSynchronizersAreNotKnownHasThatLineAlone() {
        ThreadEntry a = new ThreadEntry(1, "a", "RUNNABLE", List.of(), false, 5, "main", -1, 0, false, null);
        StackDump dump = new StackDump(0, "jvmti", true, List.of(new ThreadStack(a, List.of(), false, List.of(), null)));
        StringWriter text = new StringWriter();
        ThreadDumpText.print(new PrintWriter(text), dump, dump.threads(), new Hello.Jvm("Test VM", "v", "17.0.1", "17", "mixed mode"),
                new OwnableSynchronizers(Map.of(), null, Map.of(1L, "the thread ran while the heap was walked")));
        assertTrue(text.toString().endsWith("   Locked ownable synchronizers:\n\t- (not known: the thread ran while the heap was walked)\n\n"),
                text.toString());
    }

    @Test
    void theHeaderEndsWithHotSpotsWordsForTheOsThreadWhereKnown() {
        ThreadEntry known = new ThreadEntry(2, "Reference Handler", "RUNNABLE", List.of(), true, 10, "system", 350_000, 0x63c9,
                false, null, false, null, false, null, "waiting on condition", null, null, null, false);
        ThreadEntry unknown = new ThreadEntry(2, "Reference Handler", "RUNNABLE", List.of(), true, 10, "system", 350_000, 0x63c9,
                false, null);
        ThreadDumpText.Layout jdk17 = new ThreadDumpText.Layout(false, 0);
        assertEquals("\"Reference Handler\" #2 daemon prio=10 cpu=0.35ms nid=0x63c9 waiting on condition", ThreadDumpText.header(known, jdk17));
        assertEquals("\"Reference Handler\" #2 daemon prio=10 cpu=0.35ms nid=0x63c9 runnable", ThreadDumpText.header(unknown, jdk17));
    }

    @Test
    void theHeaderHasTheFieldsAndLayoutOfTheTargetsJdk() {
        ThreadEntry t = new ThreadEntry(23, "w", "WAITING", List.of("in_object_wait"), true, 5, "main", 80_000, 32581,
                false, null, false, null, false, null, "in Object.wait()", "0x00007fbb0047dc80", 0, 1_000_000L, false);
        Hello.Jvm jdk17 = new Hello.Jvm("VM", "v", "17.0.15", "17", null);
        Hello.Jvm jdk25 = new Hello.Jvm("VM", "v", "25.0.3", "25", null);
        assertEquals("\"w\" #23 daemon prio=5 os_prio=0 cpu=0.08ms elapsed=3.21s tid=0x00007fbb0047dc80 nid=0x7f45 in Object.wait()",
                ThreadDumpText.header(t, ThreadDumpText.Layout.of(jdk17, 1_003_210L)));
        assertEquals("\"w\" #23 [32581] daemon prio=5 os_prio=0 cpu=0.08ms elapsed=3.21s tid=0x00007fbb0047dc80 nid=32581 in Object.wait()",
                ThreadDumpText.header(t, ThreadDumpText.Layout.of(jdk25, 1_003_210L)));
    }

    @Test
    void framesNameTheirModuleAndHiddenClassesAsClassGetNameDoes() {
        assertEquals("\tat java.lang.Object.wait(java.base@17.0.15/Native Method)",
                ThreadDumpText.frameLine(new Frame("java.lang.Object", "wait", null, -2, true, "java.base@17.0.15")));
        assertEquals("\tat app.Main.run(my.app/Main.java:3)", ThreadDumpText.frameLine(new Frame("app.Main", "run", "Main.java", 3, false, "my.app")));
        assertEquals("\tat a.S$$Lambda$248/0x00007fba80155cf0.run(Unknown Source)",
                ThreadDumpText.frameLine(new Frame("a.S$$Lambda$248/0x00007fba80155cf0", "run", null, -1, false)));
    }

    @Test
    void aThreadInObjectWaitHasTheMonitorItTakesBackLockedUnderTheFrameThatEnteredIt() {
        ThreadEntry waiter = new ThreadEntry(9, "waiter", "WAITING", List.of("in_object_wait"), true, 5, "main", -1, 0, false, null);
        ThreadStack t = new ThreadStack(waiter, List.of(new Frame("java.lang.Object", "wait", null, -2, true),
                new Frame("a.B", "waitOn", "B.java", 4, false), new Frame("a.B", "run", "B.java", 9, false)), false, List.of(),
                new WaitingFor("notify", "java.lang.Object", 0xabc, -1).enteredAt(1));
        StringWriter text = new StringWriter();
        ThreadDumpText.printFrames(new PrintWriter(text), t);
        assertEquals(String.join(System.lineSeparator(),
                "\tat java.lang.Object.wait(Native Method)",
                "\t- waiting on <0x0000000000000abc> (a java.lang.Object)",
                "\tat a.B.waitOn(B.java:4)",
                "\t- locked <0x0000000000000abc> (a java.lang.Object)",
                "\tat a.B.run(B.java:9)",
                ""), text.toString());
    }

    @Test
    void saysWhyAThreadThatNeverSettledHasNoLockLines() {
        ThreadEntry mover = new ThreadEntry(9, "mover", "BLOCKED", List.of(), false, 5, "main", -1, 0, false, null);
        ThreadStack unsettled = new ThreadStack(mover, List.of(new Frame("a.B", "enter", "B.java", 20, false)), false,
                null, null, true);
        StackDump dump = new StackDump(0, "jvmti", true, List.of(unsettled));
        StringWriter text = new StringWriter();
        ThreadDumpText.print(new PrintWriter(text), dump, dump.threads(), new Hello.Jvm("Test VM", "v", "17.0.1", "17", null), null);
        assertTrue(text.toString().contains(String.join(System.lineSeparator(),
                "\"mover\" #9 prio=5 waiting for monitor entry",
                "   java.lang.Thread.State: BLOCKED (on object monitor)",
                "   Lock lines left out: the thread kept moving while they were read",
                "\tat a.B.enter(B.java:20)",
                "")), text.toString());
        assertEquals(List.of("\"mover\" BLOCKED (on object monitor) at a.B.enter"),
                DumpConsistency.unsettledThreads(text.toString()));
    }

    /** JDK 25's thread snapshot names no monitor for a thread in a compiled Object.wait0: the dump says so, as jstack does. */
    @Test
    void aMonitorTheFactsDoNotNameIsSaidToBeUnknown() {
        Frame wait0 = new Frame("java.lang.Object", "wait0", null, -2, true, "java.base@25");
        Frame caller = new Frame("a.B", "waitOn", "B.java", 4, false);
        ThreadEntry relocking = new ThreadEntry(1, "relocking", "BLOCKED", List.of(), false, 5, "main", -1, 0, false, null);
        ThreadEntry waiting = new ThreadEntry(2, "waiting", "WAITING", List.of("in_object_wait"), false, 5, "main", -1, 0, false, null);
        ThreadEntry entering = new ThreadEntry(3, "entering", "BLOCKED", List.of(), false, 5, "main", -1, 0, false, null);
        ThreadEntry sleeping = new ThreadEntry(4, "sleeping", "TIMED_WAITING", List.of("sleeping"), false, 5, "main", -1, 0, false, null);
        StackDump dump = new StackDump(0, "snapshot", true, List.of(
                new ThreadStack(relocking, List.of(wait0, caller), false, List.of(), null),
                new ThreadStack(waiting, List.of(wait0, caller), false, List.of(), null),
                new ThreadStack(entering, List.of(caller), false, List.of(), null),
                new ThreadStack(sleeping, List.of(new Frame("java.lang.Thread", "sleep0", null, -2, true), caller), false, List.of(), null)));
        StringWriter text = new StringWriter();
        ThreadDumpText.print(new PrintWriter(text), dump, dump.threads(), new Hello.Jvm("Test VM", "v", "25", "25", null), null);
        String out = text.toString();
        for (String expected : List.of(
                "\tat java.lang.Object.wait0(java.base@25/Native Method)\n\t- waiting to re-lock in wait() <no object reference available>\n",
                "\tat java.lang.Object.wait0(java.base@25/Native Method)\n\t- waiting on <no object reference available>\n",
                "\tat a.B.waitOn(B.java:4)\n\t- waiting to lock <no object reference available>\n")) {
            assertTrue(out.replace(System.lineSeparator(), "\n").contains(expected), out);
        }
        assertEquals(3, out.split("no object reference available", -1).length - 1, "the sleeping thread waits for no monitor:\n" + out);
        assertEquals(List.of(), DumpConsistency.inconsistentThreads(out));
        assertEquals(List.of("\"waiting\" WAITING (on object monitor) at java.lang.Object.wait0: no waiting on line"),
                DumpConsistency.missingWaitedMonitors(out));
    }

    @Test
    void cpuAndElapsedHaveTheDigitsFormatterGives() {
        java.util.Random random = new java.util.Random(18);
        List<Long> values = new java.util.ArrayList<>(List.of(0L, 1L, 4_999L, 5_000L, 14_999L, 15_000L, 995_000L, 1_005_000L,
                999_995_000L, 123_456_789_012_345L));
        for (int i = 0; i < 20_000; i++) {
            values.add(i % 2 == 0 ? (long) random.nextInt(100_000_000) : Math.abs(random.nextLong()) % 1_000_000_000_000_000L);
        }
        for (long value : values) {
            assertEquals(String.format(java.util.Locale.ROOT, "%.2f", value / 1e6),
                    ThreadDumpText.hundredths(value, 1_000_000), "cpu of " + value + " ns");
            assertEquals(String.format(java.util.Locale.ROOT, "%.2f", value / 1e3),
                    ThreadDumpText.hundredths(value, 1_000), "elapsed of " + value + " ms");
        }
    }

    @Test
    void aDumpIsTheSameTextAsBytesIntoATextOutputAsIntoAnyWriter() {
        ThreadEntry plain = new ThreadEntry(7, "owner", "TIMED_WAITING", List.of("sleeping"), false, 5, "main", 1_500_000, 0x1f, false, null);
        ThreadEntry wide = new ThreadEntry(8, "Ünï-线程-\uD83D\uDE00", "BLOCKED", List.of(), true, 5, "main", -1, 0, false, null);
        Frame shared = new Frame("a.Ŝhared", "run", "Ŝhared.java", 3, false, "my.app@1.0");
        StackDump dump = new StackDump(0, "jvmti", true, List.of(
                new ThreadStack(plain, List.of(new Frame("java.lang.Thread", "sleep", null, -2, true), shared), false,
                        List.of(new LockedMonitor("java.lang.Object", 0xabc, 1)), null),
                new ThreadStack(wide, List.of(new Frame("a.Ŝhared", "enter", "Ŝhared.java", 9, false), shared), true, List.of(),
                        new WaitingFor("enter", "a.Lôck", 0xabc, 7))));
        Hello.Jvm jvm = new Hello.Jvm("Test VM", "v", "17.0.1", "17", "mixed mode");
        StringWriter chars = new StringWriter();
        ThreadDumpText.print(new PrintWriter(chars), dump, dump.threads(), jvm, OwnableSynchronizers.parkedOn(dump, Map.of(7L, 1_500_000L), Set.of(), null));
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        TextOutput out = TextOutput.of(bytes, 64); // smaller than a thread: bytes and text interleave through its buffer
        out.print("before ");
        ThreadDumpText.print(out, dump, dump.threads(), jvm, OwnableSynchronizers.parkedOn(dump, Map.of(7L, 1_500_000L), Set.of(), null));
        out.print("after");
        out.flush();
        assertTrue(chars.toString().contains("\"Ünï-线程-\uD83D\uDE00\" #8 daemon"), chars.toString());
        assertEquals("before " + chars + "after", bytes.toString(java.nio.charset.StandardCharsets.UTF_8));
    }
    @Test
    void threadsThatShareAStackEachHaveTheirOwnLockLinesUnderItsFrames() {
        List<Frame> stack = List.of(new Frame("java.lang.Object", "wait", null, -2, true, "java.base@17.0.15"),
                new Frame("a.B", "hold", "B.java", 12, false), new Frame("a.B", "run", "B.java", 3, false));
        ThreadEntry plain = new ThreadEntry(1, "plain", "RUNNABLE", List.of(), false, 5, "main", -1, 0, false, null);
        ThreadEntry waiter = new ThreadEntry(2, "waiter", "WAITING", List.of("in_object_wait"), false, 5, "main", -1, 0, false, null);
        StackDump dump = new StackDump(0, "jvmti", true, List.of(
                new ThreadStack(plain, stack, false, List.of(), null),
                new ThreadStack(waiter, stack, true, List.of(new LockedMonitor("a.Outer", 0xb, 2), new LockedMonitor("a.Inner", 0xc, 2),
                        new LockedMonitor("a.Jni", 0xd, -1)), new WaitingFor("notify", "a.Cond", 0xa, -1).enteredAt(1)),
                new ThreadStack(plain, stack, false, List.of(), null)));
        StringWriter text = new StringWriter();
        ThreadDumpText.print(new PrintWriter(text), dump, dump.threads(), new Hello.Jvm("Test VM", "v", "17.0.1", "17", null), null);
        String frames = "\tat java.lang.Object.wait(java.base@17.0.15/Native Method)\n\tat a.B.hold(B.java:12)\n\tat a.B.run(B.java:3)\n";
        String plainThread = "\"plain\" #1 prio=5 runnable\n   java.lang.Thread.State: RUNNABLE\n" + frames + "\n";
        assertTrue(text.toString().endsWith("\n\n" + plainThread
                + "\"waiter\" #2 prio=5 in Object.wait()\n   java.lang.Thread.State: WAITING (on object monitor)\n"
                + "\tat java.lang.Object.wait(java.base@17.0.15/Native Method)\n"
                + "\t- waiting on <0x000000000000000a> (a a.Cond)\n"
                + "\tat a.B.hold(B.java:12)\n"
                + "\t- locked <0x000000000000000a> (a a.Cond)\n"
                + "\tat a.B.run(B.java:3)\n"
                + "\t- locked <0x000000000000000b> (a a.Outer)\n"
                + "\t- locked <0x000000000000000c> (a a.Inner)\n"
                + "\t- locked <0x000000000000000d> (a a.Jni) by JNI\n"
                + "\t...\n\n"
                + plainThread), text.toString());
    }
}
