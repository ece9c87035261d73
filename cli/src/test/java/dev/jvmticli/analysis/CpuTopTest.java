package dev.jvmticli.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.jvmticli.client.RunningThread;
import dev.jvmticli.client.ThreadEntry;
import dev.jvmticli.client.ThreadUsage;
import dev.jvmticli.client.VmThread;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CpuTopTest {
    private static ThreadEntry thread(long id, long cpuNanos) {
        return new ThreadEntry(id, "t" + id, "RUNNABLE", List.of(), false, 5, "main", cpuNanos, 0, false, null);
    }

    @Test
    void ranksByCpuUsedDuringTheIntervalNotInTotal() {
        List<ThreadEntry> before = List.of(thread(1, 9_000_000_000L), thread(2, 0), thread(3, 100));
        List<ThreadEntry> after = List.of(thread(1, 9_010_000_000L), thread(2, 500_000_000L), thread(3, 100), thread(4, 250_000_000L));
        List<CpuTop.Entry<ThreadEntry>> top = CpuTop.between(before, after, 1_000_000_000L, 3);
        assertEquals(List.of(2L, 4L, 1L), top.stream().map(e -> e.thread().id()).toList());
        assertEquals(50.0, top.get(0).cpuPercent(), 1e-9);
        assertEquals(250_000_000L, top.get(1).cpuNanosInInterval(), "a new thread counts all its CPU");
        assertEquals(1.0, top.get(2).cpuPercent(), 1e-9);
    }

    @Test
    void usageFiguresAreDifferencesWholeForANewThreadAndUnknownWhereOneReadLacksThem() {
        List<ThreadEntry> before = List.of(thread(1, 0), thread(2, 0));
        List<ThreadEntry> after = List.of(thread(1, 300), thread(2, 200), thread(3, 100));
        Map<String, ThreadUsage> usageBefore = Map.of("java 1", new ThreadUsage(10L, 20L, 1000L), "java 2", new ThreadUsage(null, null, 5L));
        Map<String, ThreadUsage> usageAfter = Map.of("java 1", new ThreadUsage(110L, 220L, 4000L), "java 2", new ThreadUsage(50L, 50L, 4L),
                "java 3", new ThreadUsage(70L, 30L, 640L));
        List<CpuTop.Entry<ThreadEntry>> top = CpuTop.between(before, after, usageBefore, usageAfter, 1000, 3);
        assertEquals(new CpuTop.Entry<>(after.get(0), 300, 30.0, 100L, 200L, 3000L), top.get(0));
        assertEquals(new CpuTop.Entry<>(after.get(1), 200, 20.0, null, null, 0L), top.get(1), "unknown before: unknown; never below 0");
        assertEquals(new CpuTop.Entry<>(after.get(2), 100, 10.0, 70L, 30L, 640L), top.get(2), "a new thread: all of it");
    }

    @Test
    void unknownCpuCountsAsNone() {
        List<CpuTop.Entry<ThreadEntry>> top = CpuTop.between(List.of(thread(1, -1)), List.of(thread(1, -1), thread(2, 5)), 10, 5);
        assertEquals(List.of(2L, 1L), top.stream().map(e -> e.thread().id()).toList());
        assertEquals(0, top.get(1).cpuNanosInInterval());
    }

    private static VmThread vm(String name, long nid, long cpuNanos) {
        return new VmThread(name, false, null, null, null, null, cpuNanos, nid, "runnable", null, 0, null);
    }

    @Test
    void rankJvmThreadsWithJavaThreadsMatchedByNativeId() {
        List<RunningThread> before = List.of(thread(1, 100), vm("GC Thread#0", 41, 1_000_000_000L), vm("VM Thread", 40, 0));
        List<RunningThread> after = List.of(thread(1, 200_000_100L), vm("GC Thread#0", 41, 1_700_000_000L), vm("VM Thread", 40, 0),
                vm("GC Thread#1", 42, 300_000_000L));
        List<CpuTop.Entry<RunningThread>> top = CpuTop.between(before, after, 1_000_000_000L, 4);
        assertEquals(List.of("GC Thread#0", "GC Thread#1", "t1", "VM Thread"), top.stream().map(e -> e.thread().name()).toList());
        assertEquals(70.0, top.get(0).cpuPercent(), 1e-9);
        assertEquals("vm", top.get(0).thread().kind());
        assertEquals("java", top.get(2).thread().kind());
    }
}
