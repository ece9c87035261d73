package dev.jvmticli.render;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.jvmticli.client.ContentionReport;
import dev.jvmticli.client.ContentionReport.Holder;
import dev.jvmticli.client.ContentionReport.Monitor;
import dev.jvmticli.client.ContentionReport.Stack;
import dev.jvmticli.render.ContentionView.ThreadCount;
import java.util.List;
import org.junit.jupiter.api.Test;

class ContentionViewTest {
    private static final long[][] FRAMES = {};

    /** Virtual threads by name and id, as `stacks --virtual` names them; unnamed ones, which share the name "", kept apart by their ids. */
    @Test
    void virtualThreadsAreToldApartByTheirIds() {
        ContentionReport report = new ContentionReport(1_000_000_000L, 4, 0,
                List.of(new Monitor(0, "Lcom/example/Lock;", 0x1234, 4, 40_000_000L, List.of(new Holder("", 31L, true, 2)), 0)),
                List.of(new Stack(0, "", 31L, true, 1, 10_000_000L, FRAMES), new Stack(0, "", 33L, true, 1, 10_000_000L, FRAMES),
                        new Stack(0, "vc-4", 25L, true, 1, 10_000_000L, FRAMES), new Stack(0, "pc-1", 20L, false, 1, 10_000_000L, FRAMES)),
                List.of(), 0, List.of(), List.of(), 0, null, null);
        ContentionView.MonitorRow row = ContentionView.monitors(report).get(0);
        assertEquals(List.of("#31 virtual", "#33 virtual", "pc-1", "vc-4 #25 virtual"), row.threads().stream().map(ThreadCount::label).toList());
        assertEquals("#31 virtual (2)", ContentionView.counts(row.holders()));
    }
}
