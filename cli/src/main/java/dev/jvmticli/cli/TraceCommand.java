package dev.jvmticli.cli;

import dev.jvmticli.client.AgentClient;
import dev.jvmticli.client.TraceReport;
import dev.jvmticli.client.TraceSession;
import dev.jvmticli.failure.CliFailure;
import dev.jvmticli.failure.ExitCode;
import dev.jvmticli.render.FlameGraph;
import dev.jvmticli.render.JsonOutput;
import dev.jvmticli.render.TraceView;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "trace", mixinStandardHelpOptions = true,
        description = "Time every call of the methods a pattern names for a while: calls, percentiles, errors, the slowest calls' stacks;"
                + " the classes are put back byte for byte at the end.")
final class TraceCommand implements Callable<Integer> {
    /** The most of the slowest calls the agent keeps. */
    static final int MAX_TOP = 100;

    private final CliContext context;

    @Mixin
    TargetOption target;

    @Parameters(index = "1", paramLabel = "<pattern>",
            description = "Class.method, as package.Class.method: '*' matches any run of characters in either part"
                    + " (com.shop.*Service.place*); the JDK's classes only when the class is named without '*'.")
    String pattern;

    @Option(names = "--duration", paramLabel = "DURATION", defaultValue = "10s", converter = DurationConverter.class,
            description = "How long to trace (default: ${DEFAULT-VALUE}); Ctrl-C stops early and still reports.")
    Duration duration;

    @Option(names = "--threshold", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "Also group the stacks of the calls that took at least DURATION.")
    Duration threshold;

    @Option(names = "--top", paramLabel = "N", defaultValue = "5", description = "Rows per table and slowest calls kept (default: ${DEFAULT-VALUE}, at most 100).")
    int top;

    @Option(names = "--depth", paramLabel = "N", defaultValue = "0",
            description = "1: also time every call the traced methods make, per callee (where inside them the time goes); 0: not (default).")
    int depth;

    @Option(names = "--json", description = "Print one JSON document instead of tables.")
    boolean json;

    @Option(names = "--collapsed", description = "Print the slow calls' stacks collapsed (root;...;leaf nanoseconds), as flame graph tools read them:"
            + " the calls over --threshold by stack, or without it the --top slowest calls.")
    boolean collapsed;

    @Option(names = "--html", paramLabel = "FILE", description = "Also write the slow calls' stacks as a self-contained flame graph page to FILE"
            + " (never through a link, never over another user's file).")
    Path html;

    TraceCommand(CliContext context) {
        this.context = context;
    }

    @Override
    public Integer call() {
        if (depth < 0 || depth > 1) {
            throw new CliFailure(ExitCode.USAGE, "--depth takes 0 or 1");
        }
        if (top <= 0 || top > MAX_TOP) {
            throw new CliFailure(ExitCode.USAGE, "--top takes a number from 1 to " + MAX_TOP);
        }
        if (json && collapsed) {
            throw new CliFailure(ExitCode.USAGE, "--json and --collapsed are alternatives: choose one");
        }
        if (html != null) {
            ReportOptions.checkHtml(html);
        }
        MethodPattern methods = MethodPattern.parse(pattern);
        long thresholdNanos = threshold == null ? 0 : threshold.toNanos();
        try (AgentClient client = context.connect(target)) {
            TraceSession.Installed installed = TraceSession.install(client, methods.classGlob(), methods.methodWanted(), thresholdNanos, top,
                    depth == 1);
            context.err().printf("tracing %d method(s) in %d class(es) for %s%n", installed.traced(),
                    installed.started().classes().size(), duration.toMillis() % 1000 == 0 ? duration.toSeconds() + "s" : duration.toMillis() + "ms");
            context.err().flush();
            SamplingWindow.run(context, client, duration, () -> print(installed, TraceSession.stop(client)));
        }
        return ExitCode.OK.code();
    }

    private void print(TraceSession.Installed installed, TraceReport report) {
        if (html != null) {
            ReportOptions.writeHtml(context, html, json || collapsed, FlameGraph.html("Slow calls of " + pattern + " in JVM " + target.target + ", nanoseconds", "ns",
                    TraceView.flame(report, top)));
        }
        if (collapsed) {
            context.out().print(FlameGraph.collapsed(TraceView.flame(report, top)));
            context.out().flush(); // after Ctrl-C or SIGTERM the JVM exits once this returns
        } else if (json) {
            JsonOutput.print(context.out(), TraceView.document(installed, report, top));
        } else {
            TraceView.print(context.out(), installed, report, top);
        }
    }
}
