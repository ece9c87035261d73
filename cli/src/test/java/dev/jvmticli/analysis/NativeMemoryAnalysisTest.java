package dev.jvmticli.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.jvmticli.client.NativeRecording.Call;
import dev.jvmticli.client.NativeRecording.Frame;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Frees matched to allocations by address, sites named; NMT's summary.diff read (JDK 17's and 25's text). */
class NativeMemoryAnalysisTest {
    private static final List<Frame> DIRECT = List.of(new Frame("os::malloc (libjvm.so)", false),
            new Frame("Unsafe_AllocateMemory0 (libjvm.so)", false), new Frame("jdk.internal.misc.Unsafe.allocateMemory0", true),
            new Frame("java.nio.ByteBuffer.allocateDirect:332", true), new Frame("com.shop.Cache.put:12", true));
    private static final List<Frame> LIBRARY = List.of(new Frame("leak (libleak.so)", false), new Frame("com.shop.Native.leak", true));
    private static final List<Frame> JVM_ONLY = List.of(new Frame("os::malloc (libjvm.so)", false),
            new Frame("AllocateHeap (libjvm.so)", false), new Frame("SubTasksDone::SubTasksDone (libjvm.so)", false));

    private static Call malloc(long at, long address, long size, List<Frame> frames) {
        return new Call(at, false, address, size, 7, "main", frames);
    }

    private static Call free(long at, long address) {
        return new Call(at, true, address, 0, 7, "main", List.of());
    }

    /** async-profiler's library as the agent loads it, with its hash in its name, and the agent's other thread: the tool's own. */
    @Test
    void leavesOutTheProfilersHashedLibraryAndEveryThreadOfTheAgent() {
        List<Frame> profiler = List.of(new Frame("Arguments::parse (libasyncProfiler-3c03ce90c8c34332480d14cb0a5b9eb3.so)", false));
        List<Call> calls = List.of(malloc(1, 0x10, 537, profiler), new Call(2, false, 0x20, 64, 43, "jvmti-cli memory --native", JVM_ONLY),
                malloc(3, 0x30, 8, LIBRARY));
        NativeAllocations.Result result = NativeAllocations.of(calls, java.util.Set.of(42L, 43L), name -> name.startsWith("java."));
        assertEquals(2, result.totals().ownAllocations());
        assertEquals(601, result.totals().ownBytes());
        assertEquals(1, result.sites().size());
    }

    @Test
    void matchesFreesByAddressAndLeavesOutTheToolsOwn() {
        List<Call> calls = List.of(
                malloc(1, 0x10, 100, DIRECT), malloc(2, 0x20, 100, DIRECT), free(3, 0x10),
                malloc(4, 0x10, 30, LIBRARY), // the address given out again
                free(5, 0x99), // allocated before the window
                malloc(6, 0x30, 8, JVM_ONLY),
                new Call(7, false, 0x40, 1000, 42, "jvmti-cli", JVM_ONLY), free(8, 0x40));
        NativeAllocations.Result result = NativeAllocations.of(calls, java.util.Set.of(42L), name -> name.startsWith("java.") || name.startsWith("jdk."));
        assertEquals(new NativeAllocations.Totals(238, 4, 100, 1, 138, 3, 1, 1000, 1), result.totals());
        NativeAllocations.Site direct = result.sites().get(0);
        assertEquals("com.shop.Cache.put:12", direct.site());
        assertEquals("Unsafe_AllocateMemory0 (libjvm.so)", direct.via());
        assertEquals(100, direct.heldBytes());
        assertEquals(1, direct.frees());
        NativeAllocations.Site library = result.sites().get(1);
        assertEquals("com.shop.Native.leak", library.site());
        assertEquals("leak (libleak.so)", library.via());
        NativeAllocations.Site jvm = result.sites().get(2);
        assertEquals("(no Java frame)", jvm.site());
        assertEquals("SubTasksDone::SubTasksDone (libjvm.so)", jvm.via());
    }

    @Test
    void readsTheSummaryDiff() {
        String jdk17 = """
                Native Memory Tracking:

                Total: reserved=7844797KB +2879KB, committed=478201KB +2879KB

                -                 Java Heap (reserved=6172672KB, committed=397312KB)
                                            (mmap: reserved=6172672KB, committed=397312KB)
                \s
                -                     Other (reserved=4914KB +2863KB, committed=4914KB +2863KB)
                                            (malloc=4914KB +2863KB #714 +416)
                \s
                -    Native Memory Tracking (reserved=82KB +9KB, committed=82KB +9KB)
                                            (malloc=7KB +1KB #106 +19)
                                            (tracking overhead=75KB +8KB)
                """;
        NmtDiff.Diff diff = NmtDiff.parse(jdk17);
        assertEquals(new NmtDiff.Category("Total", 478201L << 10, 2879L << 10, 0, 0, 0), diff.total());
        assertEquals(new NmtDiff.Category("Java Heap", 397312L << 10, 0, 0, 0, 0), diff.categories().get(0));
        assertEquals(new NmtDiff.Category("Other", 4914L << 10, 2863L << 10, 4914L << 10, 2863L << 10, 416), diff.categories().get(1));
        assertEquals("Native Memory Tracking", diff.categories().get(2).name());
        String jdk25 = """
                Total: reserved=7736261KB +3106KB, committed=469925KB +3106KB

                malloc=13393KB +3106KB #6305 +667

                -                     Other (reserved=5121KB +2877KB, committed=5121KB +2877KB)
                                            (malloc=5121KB +2877KB #744 +418)

                -                    Symbol (reserved=1130KB, committed=1130KB)
                                            (malloc=770KB #24)
                """;
        diff = NmtDiff.parse(jdk25);
        assertEquals(new NmtDiff.Category("Other", 5121L << 10, 2877L << 10, 5121L << 10, 2877L << 10, 418), diff.categories().get(0));
        assertEquals(new NmtDiff.Category("Symbol", 1130L << 10, 0, 770L << 10, 0, 0), diff.categories().get(1));
        assertNull(NmtDiff.parse("Native memory tracking is not enabled"));
    }
}
