package dev.jvmticli.render;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class FlameGraphTest {
    @Test
    void collapsedMergesEqualStacksSortsThemAndKeepsTheFormatIntact() {
        String text = FlameGraph.collapsed(List.of(
                new FlameGraph.Sample(List.of("main", "b"), 5),
                new FlameGraph.Sample(List.of("main", "a"), 2),
                new FlameGraph.Sample(List.of("main", "b"), 3),
                new FlameGraph.Sample(List.of("[odd;thread\nname]", "x y"), 1),
                new FlameGraph.Sample(List.of("main", "zero"), 0)));
        assertEquals("[odd:thread\\nname];x y 1\nmain;a 2\nmain;b 8\n", text);
    }

    @Test
    void thePageCarriesTheTreeAndCannotBeBrokenOutOf() {
        String page = FlameGraph.html("t <b>", "bytes", List.of(
                new FlameGraph.Sample(List.of("main", "</script><script>alert(1)</script>"), 7),
                new FlameGraph.Sample(List.of("main", "leaf"), 3)));
        assertTrue(page.contains("<title>t &lt;b&gt;</title>"));
        assertTrue(page.contains("\"n\":\"all\",\"v\":10"), page);
        assertTrue(page.contains("\"n\":\"main\",\"v\":10"));
        assertTrue(page.contains("\\u003c/script\\u003e\\u003cscript\\u003ealert(1)"));
        assertEquals(2, page.split("</script>", -1).length - 1, "only the page's own two script elements end");
        assertFalse(page.contains("http"), "loads nothing from the network");
    }
}
