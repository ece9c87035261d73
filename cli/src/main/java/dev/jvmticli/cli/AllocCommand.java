package dev.jvmticli.cli;

import dev.jvmticli.client.AgentClient;
import dev.jvmticli.client.AllocReport;
import dev.jvmticli.failure.ExitCode;
import dev.jvmticli.render.AllocView;
import dev.jvmticli.render.FlameGraph;
import dev.jvmticli.render.JsonOutput;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "alloc", mixinStandardHelpOptions = true,
        description = "Sample heap allocations for a while: top classes and allocation sites, as a table, collapsed stacks or a flame graph.")
final class AllocCommand implements Callable<Integer> {
    private final CliContext context;

    @Mixin
    TargetOption target;

    @Mixin
    ReportOptions report;

    @Option(names = "--interval", paramLabel = "SIZE", defaultValue = "512k", converter = SizeConverter.class,
            description = "Take one sample per SIZE allocated bytes on average (default: ${DEFAULT-VALUE}).")
    long interval;

    AllocCommand(CliContext context) {
        this.context = context;
    }

    @Override
    public Integer call() {
        report.validate();
        try (AgentClient client = context.connect(target.resolve())) {
            client.call("alloc.start", Map.of("interval", interval), Map.class);
            SamplingWindow.run(context, report.duration, () -> print(client.call("alloc.stop", Map.of(), AllocReport.class)));
        }
        return ExitCode.OK.code();
    }

    private void print(AllocReport result) {
        if (report.html != null) {
            report.writeHtml(context, FlameGraph.html("Allocations in JVM " + target.target + ", estimated bytes", "bytes",
                    AllocView.flame(result)));
        }
        if (report.collapsed) {
            context.out().print(FlameGraph.collapsed(AllocView.flame(result)));
            context.out().flush();
        } else if (report.json) {
            JsonOutput.print(context.out(), AllocView.document(result));
        } else {
            AllocView.print(context.out(), result, report.top);
        }
    }
}
