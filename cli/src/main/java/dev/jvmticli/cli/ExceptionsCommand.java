package dev.jvmticli.cli;

import dev.jvmticli.client.AgentClient;
import dev.jvmticli.client.ExceptionsReport;
import dev.jvmticli.client.ExceptionsSession;
import dev.jvmticli.failure.CliFailure;
import dev.jvmticli.failure.ExitCode;
import dev.jvmticli.render.ExceptionsView;
import dev.jvmticli.render.JsonOutput;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "exceptions", mixinStandardHelpOptions = true,
        description = "Count every Throwable created for a while, by class and per second, with where the application made them (sampled"
                + " stacks and messages); a probe in java.lang.Throwable's constructors, put back byte for byte at the end.")
final class ExceptionsCommand implements Callable<Integer> {
    static final int MAX_TOP = 100;

    private final CliContext context;

    @Mixin
    TargetOption target;

    @Option(names = "--duration", paramLabel = "DURATION", defaultValue = "10s", converter = DurationConverter.class,
            description = "How long to count (default: ${DEFAULT-VALUE}); Ctrl-C stops early and still reports.")
    Duration duration;

    @Option(names = "--top", paramLabel = "N", defaultValue = "5", description = "Classes and sites shown (default: ${DEFAULT-VALUE}, at most 100).")
    int top;

    @Option(names = "--json", description = "Print one JSON document instead of tables.")
    boolean json;

    @Option(names = "--collapsed", description = "Print the sampled stacks as collapsed stacks (root first, the Throwable's class last),"
            + " for flame graph tools.")
    boolean collapsed;

    ExceptionsCommand(CliContext context) {
        this.context = context;
    }

    @Override
    public Integer call() {
        if (top <= 0 || top > MAX_TOP) {
            throw new CliFailure(ExitCode.USAGE, "--top takes a number from 1 to " + MAX_TOP);
        }
        if (json && collapsed) {
            throw new CliFailure(ExitCode.USAGE, "--json and --collapsed cannot be given together");
        }
        try (AgentClient client = context.connect(target)) {
            ExceptionsSession.install(client);
            context.err().printf("counting exceptions for %s%n",
                    duration.toMillis() % 1000 == 0 ? duration.toSeconds() + "s" : duration.toMillis() + "ms");
            context.err().flush();
            String phase = client.phase();
            SamplingWindow.run(context, client, duration, () -> print(ExceptionsSession.stop(client), phase));
        }
        return ExitCode.OK.code();
    }

    private void print(ExceptionsReport report, String phase) {
        if (json) {
            JsonOutput.print(context.out(), ExceptionsView.document(report, top, phase));
        } else if (collapsed) {
            ExceptionsView.printCollapsed(context.out(), report);
        } else {
            ExceptionsView.print(context.out(), report, top, phase);
        }
    }
}
