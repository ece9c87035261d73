package dev.jvmticli.cli;

import dev.jvmticli.client.AgentClient;
import dev.jvmticli.client.AllocReport;
import dev.jvmticli.client.LivePathsRequest;
import dev.jvmticli.client.VmInfo;
import dev.jvmticli.failure.CliFailure;
import dev.jvmticli.failure.ExitCode;
import dev.jvmticli.render.JsonOutput;
import dev.jvmticli.render.LivePathsView;
import java.time.Duration;
import java.util.Map;

/**
 * {@code heap --paths --from-live}: an {@code alloc --live} window, then, as it stops and before
 * the agent lets go of its samples, one walk of the heap from its roots giving each survivor its
 * shortest path: what keeps alive the objects that survive, by allocation site.
 */
final class HeapPathsFromLive {
    /** The walk's bounds, as heap --paths takes them. */
    record Limits(int maxPaths, int maxDepth, long maxObjects) {
    }

    private HeapPathsFromLive() {
    }

    static int run(CliContext context, TargetOption target, Duration duration, long sampleInterval, int minAge, Limits limits, boolean json) {
        if (sampleInterval < AllocCommand.MIN_INTERVAL) {
            throw new CliFailure(ExitCode.USAGE, "--sample-interval below 64k slows the target's allocation: the lowest allowed is 64k (alloc --force goes lower)");
        }
        if (minAge < 0) {
            throw new CliFailure(ExitCode.USAGE, "--min-age takes a number of GCs, 0 or more");
        }
        try (AgentClient client = context.connect(target)) {
            VmInfo vm = client.vm();
            AllocCommand.refuseUntrueAges(vm, target.target);
            client.call(AllocCommand.liveRequest(vm, sampleInterval, minAge), Map.class);
            boolean majorOnly = vm.flagOn("UseZGC");
            Duration answerTimeout = HeapCommand.answerTimeout(context, vm);
            SamplingWindow.run(context, client, duration, () -> {
                AllocReport report = client.call(new LivePathsRequest(limits.maxPaths(), limits.maxDepth(), limits.maxObjects()), AllocReport.class,
                        answerTimeout);
                print(context, target, report, majorOnly, json);
            });
        }
        return ExitCode.OK.code();
    }

    private static void print(CliContext context, TargetOption target, AllocReport report, boolean majorOnly, boolean json) {
        if (report.live() == null || report.paths() == null) {
            throw new CliFailure(ExitCode.INCOMPATIBLE_AGENT, "the agent resident in JVM " + target.target
                    + " predates heap --paths --from-live: detach it (jvmti-cli detach) and run again");
        }
        if (report.paths().error() != null) {
            throw new CliFailure(ExitCode.FAILURE, "agent: " + report.paths().error().message() + " (" + report.paths().error().code() + ")");
        }
        if (json) {
            JsonOutput.print(context.out(), LivePathsView.document(report, majorOnly));
        } else {
            LivePathsView.print(context.out(), report, majorOnly);
        }
        context.out().flush();
    }
}
