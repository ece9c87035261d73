package dev.jvmticli.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.jvmticli.client.ThreadEntry;
import java.util.List;
import org.junit.jupiter.api.Test;

class CpuTopTest {
    private static ThreadEntry thread(long id, long cpuNanos) {
        return new ThreadEntry(id, "t" + id, "RUNNABLE", List.of(), false, 5, "main", cpuNanos, 0, false, null);
    }

    @Test
    void ranksByCpuUsedDuringTheIntervalNotInTotal() {
        List<ThreadEntry> before = List.of(thread(1, 9_000_000_000L), thread(2, 0), thread(3, 100));
        List<ThreadEntry> after = List.of(thread(1, 9_010_000_000L), thread(2, 500_000_000L), thread(3, 100), thread(4, 250_000_000L));
        List<CpuTop.Entry> top = CpuTop.between(before, after, 1_000_000_000L, 3);
        assertEquals(List.of(2L, 4L, 1L), top.stream().map(e -> e.thread().id()).toList());
        assertEquals(50.0, top.get(0).cpuPercent(), 1e-9);
        assertEquals(250_000_000L, top.get(1).cpuNanosInInterval(), "a new thread counts all its CPU");
        assertEquals(1.0, top.get(2).cpuPercent(), 1e-9);
    }

    @Test
    void unknownCpuCountsAsNone() {
        List<CpuTop.Entry> top = CpuTop.between(List.of(thread(1, -1)), List.of(thread(1, -1), thread(2, 5)), 10, 5);
        assertEquals(List.of(2L, 1L), top.stream().map(e -> e.thread().id()).toList());
        assertEquals(0, top.get(1).cpuNanosInInterval());
    }
}
