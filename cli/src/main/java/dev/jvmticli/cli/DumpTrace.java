package dev.jvmticli.cli;

import dev.jvmticli.client.AgentClient;
import dev.jvmticli.client.AgentError;
import dev.jvmticli.client.TraceReport;
import dev.jvmticli.client.TraceSession;
import dev.jvmticli.failure.CliFailure;
import dev.jvmticli.failure.ExitCode;
import dev.jvmticli.render.TraceSummary;
import dev.jvmticli.render.TraceView;
import java.time.Duration;

/**
 * `dump --trace`: a session of the instrumentation engine, as `trace` runs it (the same bounds and
 * refusals), over the dump's rounds. A session that cannot start (another client instrumenting the
 * JVM: busy; a pattern that matches no method or too many; bytes the JVM refuses) leaves its reason,
 * for one line of summary.md, instead of failing the dump. The classes are put back when it stops;
 * on any other way out the dump abandons it, and a CLI that dies closes its connection: the agent
 * puts them back either way.
 */
final class DumpTrace {
    /** The slowest calls kept, as trace's default --top. */
    private static final int TOP = 5;

    private final MethodPattern pattern;
    private final Duration threshold;
    private final TraceSession.Installed installed;
    private final String missing;
    private boolean running;

    private DumpTrace(MethodPattern pattern, Duration threshold, TraceSession.Installed installed, String missing) {
        this.pattern = pattern;
        this.threshold = threshold;
        this.installed = installed;
        this.missing = missing;
        this.running = installed != null;
    }

    /** Starts tracing; a refusal (the agent's or the CLI's, as trace would exit 1 with it) is kept with its reason. */
    static DumpTrace start(AgentClient client, MethodPattern pattern, Duration threshold) {
        try {
            return new DumpTrace(pattern, threshold, TraceSession.install(client, pattern.classGlob(), pattern.methodWanted(),
                    threshold == null ? 0 : threshold.toNanos(), TOP), null);
        } catch (AgentError refused) {
            return new DumpTrace(pattern, threshold, null, "not recorded: " + refused.agentMessage() + " (" + refused.code() + ")");
        } catch (CliFailure failure) {
            if (failure.exitCode() != ExitCode.FAILURE) {
                throw failure; // the connection lost, a timeout: the dump cannot go on either
            }
            return new DumpTrace(pattern, threshold, null, "not recorded: " + failure.getMessage());
        }
    }

    /** Whether the probes are in. */
    boolean installed() {
        return installed != null;
    }

    /** Why the session did not start ("not recorded: ..."), or null. */
    String missing() {
        return missing;
    }

    /** Stops the session (the classes put back), writes trace/trace.txt and trace/trace.json, and returns what summary.md says of it. */
    TraceSummary.Traced stop(AgentClient client, DumpDirectory directory) {
        if (!running) {
            return new TraceSummary.Traced(pattern.text(), null, null, missing);
        }
        running = false;
        TraceReport report = TraceSession.stop(client);
        String command = "trace " + pattern.text() + " --top " + TOP + (threshold == null ? "" : " --threshold " + threshold.toMillis() + "ms");
        directory.write("trace/trace.txt", 0, command, printer -> TraceView.print(printer, installed, report, TOP));
        directory.writeJson("trace/trace.json", 0, command + " --json", TraceView.document(installed, report, TOP));
        return new TraceSummary.Traced(pattern.text(), installed, report, null);
    }

    /** The dump ends another way (a failure, an interrupt): the session ends without a report, the classes put back. */
    void abandon(AgentClient client) {
        if (!running) {
            return;
        }
        running = false;
        TraceSession.stopQuietly(client);
    }
}
