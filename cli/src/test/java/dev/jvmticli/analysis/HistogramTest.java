package dev.jvmticli.analysis;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

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
