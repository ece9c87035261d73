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
    void thePageCarriesEachFrameFlatAndEachNameOnce() {
        String page = FlameGraph.html("t", "samples", List.of(
                new FlameGraph.Sample(List.of("main", "b"), 5),
                new FlameGraph.Sample(List.of("main", "a", "b"), 2),
                new FlameGraph.Sample(List.of("other"), 3),
                new FlameGraph.Sample(List.of("main", "zero"), 0)));
        // name index, depth, left, width; depth first, children in name order
        assertTrue(page.contains("\"frames\":[0,0,0,10,1,1,0,7,2,2,0,2,3,3,0,2,3,2,2,5,4,1,7,3],"
                + "\"names\":[\"all\",\"main\",\"a\",\"b\",\"other\"]"), page);
    }

    @Test
    void thePageCannotBeBrokenOutOf() {
        String page = FlameGraph.html("t <b> @DATA@", "bytes", List.of(
                new FlameGraph.Sample(List.of("main", "</script><script>alert(1)</script>", "@TITLE@"), 7),
                new FlameGraph.Sample(List.of("main", "<!--\"'&\u0007\u2028\ud800"), 3)));
        assertTrue(page.contains("<title>t &lt;b&gt; @DATA@</title>"), page);
        assertTrue(page.contains("\"title\":\"t \\u003cb\\u003e @DATA@\""), page);
        assertTrue(page.contains("\"@TITLE@\""), "a name that reads like a placeholder stays itself");
        assertTrue(page.contains("\"\\u003c/script\\u003e\\u003cscript\\u003ealert(1)\\u003c/script\\u003e\""), page);
        // a name is shown as every text output shows it (Printable: BEL as a backslash and a, a line separator and a lone surrogate by code point)
        assertTrue(page.contains("\"\\u003c!--\\u0022'\\u0026\\u005ca\\u005cu{2028}\\u005cu{d800}\""), page);
        assertEquals(2, page.split("</script>", -1).length - 1, "only the page's own two script elements end");
        assertFalse(page.contains("<!--"), "no name opens a comment");
        assertTrue(page.chars().allMatch(c -> c == '\n' || c >= 0x20 && c < 0x7f), "plain ASCII: no name can make the page invalid UTF-8");
        assertFalse(page.contains("http") || page.contains("src="), "loads nothing from the network");
    }
}
