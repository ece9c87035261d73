package dev.jvmticli.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jvmticli.client.VmInfo;
import java.io.PrintWriter;
import java.io.Writer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** How long `heap` and `dump --heap` wait for a histogram: --timeout when given, else a time that grows with the heap. */
class HistogramTimeoutTest {
    private final CliContext context = new CliContext(new PrintWriter(Writer.nullWriter()), new PrintWriter(Writer.nullWriter()));

    private static VmInfo maxHeap(String bytes) {
        return new VmInfo(Map.of(), 0, 0, List.of(), bytes == null ? Map.of() : Map.of("MaxHeapSize", new VmInfo.Flag(bytes, "ERGONOMIC")));
    }

    @Test
    void withoutTimeoutItGrowsWithTheMaximumHeapUpToTheAgentsOwnLimit() {
        JvmtiCli.commandLine(context).parseArgs("heap", "4242");
        assertTrue(context.givenTimeout().isEmpty());
        assertEquals(Duration.ofSeconds(10), context.timeout());
        assertEquals(Duration.ofSeconds(40), HeapCommand.answerTimeout(context, maxHeap("536870912")));
        assertEquals(Duration.ofSeconds(80), HeapCommand.answerTimeout(context, maxHeap(Long.toString(5L << 30))));
        assertEquals(Duration.ofSeconds(610), HeapCommand.answerTimeout(context, maxHeap(Long.toString(100L << 30))));
        assertEquals(Duration.ofSeconds(610), HeapCommand.answerTimeout(context, maxHeap(null)), "a heap of unknown size");
        assertEquals(Duration.ofSeconds(610), HeapCommand.answerTimeout(context, maxHeap("lots")));
    }

    @Test
    void aGivenTimeoutIsTheHistogramsToo() {
        JvmtiCli.commandLine(context).parseArgs("heap", "4242", "--timeout", "5s");
        assertEquals(Duration.ofSeconds(5), context.timeout());
        assertEquals(Duration.ofSeconds(5), HeapCommand.answerTimeout(context, maxHeap(Long.toString(5L << 30))));
    }
}
