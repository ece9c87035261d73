package dev.jvmticli.analysis;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class HistogramTest {
    static final String JDK17 = """
             num     #instances         #bytes  class name (module)
            -------------------------------------------------------
               1:         29543        1997440  [B (java.base@17.0.9)
               2:         23783         570792  java.lang.String (java.base@17.0.9)
               3:          2000          64000  com.example.Leak
               4:             5            160  com.example.Leak
            Total        55331        2632392
            """;

    /** The head and total of Temurin 25's GC.class_histogram -all of a G1 JVM that allocates byte[100]s (rows 9-221 left out). */
    static final String JDK25_G1 = """
             num     #instances         #bytes  class name (module)
            -------------------------------------------------------
               1:        119249       13647968  [B (java.base@25.0.3)
               2:            45        1120960  [Ljdk.internal.vm.FillerElement; (java.base@25.0.3)
               3:          1692         223952  java.lang.Class (java.base@25.0.3)
               4:          8673         208152  java.lang.String (java.base@25.0.3)
               5:          1035         138040  [Ljava.lang.Object; (java.base@25.0.3)
               6:          3143         125720  jdk.internal.event.ThreadSleepEvent (java.base@25.0.3)
               7:          2288          57560  [I (java.base@25.0.3)
               8:             6          33456  [C (java.base@25.0.3)
            Total        142440       15791384
            """;

    @Test
    void theGcsFillersAreCountedApartFromTheObjects() {
        Histogram h = Histogram.parse(JDK25_G1);
        assertEquals(List.of("[B", "java.lang.Class", "java.lang.String"), h.top(3).stream().map(Histogram.Row::className).toList());
        assertTrue(h.rows().stream().noneMatch(r -> r.className().contains("Filler")), h.rows().toString());
        assertEquals(new Histogram.Filler(45, 1120960), h.filler());
        assertEquals(142440 - 45, h.instances());
        assertEquals(15791384 - 1120960, h.bytes());
        assertEquals(new Histogram.Filler(0, 0), Histogram.parse(JDK17).filler());
    }

    @Test
    void fillersDoNotGrow() {
        Histogram first = Histogram.parse("   1:   1   2000000  [Ljdk.internal.vm.FillerElement; (java.base@25)\n   2:   10   800  Leak\n");
        Histogram last = Histogram.parse("   1:   9   9000000  [Ljdk.internal.vm.FillerElement; (java.base@25)\n   2:   3   96  jdk.internal.vm.FillerObject (java.base@25)\n"
                + "   3:   30   2400  Leak\n");
        assertEquals(List.of("Leak"), Histogram.growth(List.of(first, last)).stream().map(Histogram.Growth::className).toList());
        assertEquals(new Histogram.Filler(12, 9000096), last.filler());
    }

    @Test
    void readsRowsModulesAndTheTotal() {
        Histogram h = Histogram.parse(JDK17);
        assertEquals(3, h.rows().size());
        assertEquals(new Histogram.Row("[B", "java.base@17.0.9", 29543, 1997440), h.rows().get(0));
        Histogram.Row leak = h.rows().get(2);
        assertEquals("com.example.Leak", leak.className());
        assertNull(leak.module());
        assertEquals(2005, leak.instances(), "two loaders' classes of one name are added together");
        assertEquals(55331, h.instances());
        assertEquals(2632392, h.bytes());
        assertEquals(1, h.top(1).size());
    }

    @Test
    void withoutATotalLineTheRowsAreSummed() {
        Histogram h = Histogram.parse("   1:   10   160  A\n   2:   1   16  B\n");
        assertEquals(11, h.instances());
        assertEquals(176, h.bytes());
    }

    @Test
    void growthOrdersByBytesGrownAndCountsAbsentClassesAsZero() {
        Histogram first = Histogram.parse("   1:   100   16000  Churn\n   2:   10   800  Leak\n");
        Histogram last = Histogram.parse("   1:   50   8000  Churn\n   2:   30   2400  Leak\n   3:   1   24  New\n");
        List<Histogram.Growth> growth = Histogram.growth(List.of(first, last));
        assertEquals("Leak", growth.get(0).className());
        assertEquals(1600, growth.get(0).bytesGrown());
        assertEquals(20, growth.get(0).instancesGrown());
        assertEquals("New", growth.get(1).className());
        assertArrayEquals(new long[] {0, 1}, growth.get(1).instances());
        assertEquals("Churn", growth.get(2).className());
        assertEquals(-8000, growth.get(2).bytesGrown());
    }
}
