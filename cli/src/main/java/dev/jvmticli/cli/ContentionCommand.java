package dev.jvmticli.cli;

import dev.jvmticli.client.AgentClient;
import dev.jvmticli.client.ContentionReport;
import dev.jvmticli.failure.ExitCode;
import dev.jvmticli.render.ContentionView;
import dev.jvmticli.render.FlameGraph;
import dev.jvmticli.render.JsonOutput;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "contention", mixinStandardHelpOptions = true,
        description = "Profile lock contention for a while: contended monitors, the threads that waited, who held them, and where.")
final class ContentionCommand implements Callable<Integer> {
    private final CliContext context;

    @Mixin
    TargetOption target;

    @Mixin
    ReportOptions report;

    @Option(names = "--by-thread", description = "Where threads blocked: one row per thread and site (default: one row per site, "
            + "with the threads that blocked there).")
    boolean byThread;

    ContentionCommand(CliContext context) {
        this.context = context;
    }

    @Override
    public Integer call() {
        report.validate();
        try (AgentClient client = context.connect(target)) {
            client.call("contention.start", Map.of(), Map.class);
            SamplingWindow.run(context, client, report.duration, () -> print(client.call("contention.stop", Map.of(), ContentionReport.class)));
        }
        return ExitCode.OK.code();
    }

    private void print(ContentionReport result) {
        if (report.html != null) {
            report.writeHtml(context, FlameGraph.html("Lock contention in JVM " + target.target + ", nanoseconds blocked", "ns",
                    ContentionView.flame(result)));
        }
        if (report.collapsed) {
            context.out().print(FlameGraph.collapsed(ContentionView.flame(result)));
            context.out().flush();
        } else if (report.json) {
            JsonOutput.print(context.out(), ContentionView.document(result, byThread));
        } else {
            ContentionView.print(context.out(), result, report.top, byThread);
        }
    }
}
