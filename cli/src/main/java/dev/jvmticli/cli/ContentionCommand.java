package dev.jvmticli.cli;

import dev.jvmticli.client.AgentClient;
import dev.jvmticli.client.ContentionReport;
import dev.jvmticli.client.ContentionSession;
import dev.jvmticli.failure.ExitCode;
import dev.jvmticli.render.ContentionView;
import dev.jvmticli.render.FlameGraph;
import dev.jvmticli.render.JsonOutput;
import dev.jvmticli.render.ParksView;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "contention", mixinStandardHelpOptions = true,
        description = "Profile lock contention for a while: contended monitors and parks on j.u.c locks, semaphores, conditions and"
                + " queues (idle pool waits apart), the threads that waited, who held them, where, and virtual threads pinned to their carrier.")
final class ContentionCommand implements Callable<Integer> {
    private final CliContext context;

    @Mixin
    TargetOption target;

    @Mixin
    ReportOptions report;

    @Option(names = "--by-thread", description = "Where threads blocked: one row per thread and site (default: one row per site, "
            + "with the threads that blocked there).")
    boolean byThread;

    @Option(names = "--no-parks", description = "Record contended monitors only, not the parks (LockSupport.park*, which put probes in"
            + " LockSupport and VirtualThread for the window).")
    boolean noParks;

    ContentionCommand(CliContext context) {
        this.context = context;
    }

    @Override
    public Integer call() {
        report.validate();
        try (AgentClient client = context.connect(target)) {
            ContentionSession session = ContentionSession.start(client, !noParks);
            SamplingWindow.run(context, client, report.duration, () -> print(client, session.stop()));
        }
        return ExitCode.OK.code();
    }

    private void print(AgentClient client, ContentionSession.Result recorded) {
        ContentionReport result = recorded.monitors();
        List<FlameGraph.Sample> flame = new ArrayList<>(ContentionView.flame(result));
        if (recorded.parks() != null) {
            flame.addAll(ParksView.flame(recorded.parks()));
        }
        if (report.html != null) {
            report.writeHtml(context, FlameGraph.html("Lock contention in JVM " + target.target + ", nanoseconds blocked on monitors and parked"
                    + " waiting for another thread", "ns", flame));
        }
        if (report.collapsed) {
            context.out().print(FlameGraph.collapsed(flame));
            context.out().flush();
        } else if (report.json) {
            Map<String, Object> doc = new LinkedHashMap<>(ContentionView.document(result, byThread));
            if (recorded.parks() != null) {
                doc.put("parks", ParksView.document(recorded.parks(), ParkHolders.read(client, recorded.parks())));
            } else if (recorded.parksUnavailable() != null) {
                doc.put("parksUnavailable", recorded.parksUnavailable());
            }
            JsonOutput.print(context.out(), doc);
        } else {
            ContentionView.print(context.out(), result, report.top, byThread);
            if (recorded.parks() != null) {
                ParksView.print(context.out(), recorded.parks(), report.top, ParkHolders.read(client, recorded.parks()));
            } else if (recorded.parksUnavailable() != null) {
                context.out().println();
                context.out().println("parks not recorded: " + recorded.parksUnavailable());
                context.out().flush();
            }
        }
    }
}
