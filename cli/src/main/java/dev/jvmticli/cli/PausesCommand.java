package dev.jvmticli.cli;

import dev.jvmticli.attach.TargetProcess;
import dev.jvmticli.client.AgentClient;
import dev.jvmticli.client.AgentConnector;
import dev.jvmticli.client.PausesReport;
import dev.jvmticli.client.PausesStartRequest;
import dev.jvmticli.failure.CliFailure;
import dev.jvmticli.failure.ExitCode;
import dev.jvmticli.render.JsonOutput;
import dev.jvmticli.render.PausesView;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "pauses", mixinStandardHelpOptions = true,
        description = "Record every stop-the-world pause for a while, GC or not: its operation, the time to reach the safepoint "
                + "and at it, and their totals (from the JVM's own safepoint log, added while the command runs).")
final class PausesCommand implements Callable<Integer> {
    private final CliContext context;

    @Mixin
    TargetOption target;

    @Option(names = "--duration", paramLabel = "DURATION", defaultValue = "10s", converter = DurationConverter.class,
            description = "How long to record (default: ${DEFAULT-VALUE}); Ctrl-C stops early and still reports.")
    Duration duration;

    @Option(names = "--slow-reach", paramLabel = "DURATION", defaultValue = "5ms", converter = DurationConverter.class,
            description = "List the pauses whose safepoint took longer than this to reach (default: ${DEFAULT-VALUE}).")
    Duration slowReach;

    @Option(names = "--late-threads", description = "Also sample, with async-profiler's time-to-safepoint mode, the threads still "
            + "running while the JVM waits for them to stop: for each pause slow to reach, the threads that held it up, and where.")
    boolean lateThreads;

    @Option(names = "--top", paramLabel = "N", defaultValue = "10", description = "Threads listed for each slow pause under --late-threads (default: ${DEFAULT-VALUE}).")
    int top;

    @Option(names = "--json", description = "Print one JSON document instead of tables.")
    boolean json;

    PausesCommand(CliContext context) {
        this.context = context;
    }

    @Override
    public Integer call() {
        if (top <= 0) {
            throw new CliFailure(ExitCode.USAGE, "--top takes a positive number");
        }
        TargetProcess process = target.resolve();
        try (AgentClient client = context.connect(process)) {
            String library = lateThreads ? AgentConnector.profilerLibrary(process).toString() : null;
            client.call(new PausesStartRequest(library), Map.class);
            SamplingWindow.run(context, client, duration, () -> print(client.call("pauses.stop", Map.of(), PausesReport.class)));
        }
        return ExitCode.OK.code();
    }

    private void print(PausesReport report) {
        if (json) {
            JsonOutput.print(context.out(), PausesView.document(report, slowReach.toNanos()));
        } else {
            PausesView.print(context.out(), report, slowReach.toNanos(), top);
        }
    }
}
