package dev.jvmticli.cli;

import dev.jvmticli.client.AgentClient;
import dev.jvmticli.client.AllocReport;
import dev.jvmticli.client.VmInfo;
import dev.jvmticli.failure.CliFailure;
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
        description = "Sample heap allocations for a while: top classes and allocation sites, as a table, collapsed stacks or a flame graph;"
                + " with --live, only the sampled objects still alive at the end.")
final class AllocCommand implements Callable<Integer> {
    private final CliContext context;

    @Mixin
    TargetOption target;

    @Mixin
    ReportOptions report;

    @Option(names = "--interval", paramLabel = "SIZE", defaultValue = "512k", converter = SizeConverter.class,
            description = "Take one sample per SIZE allocated bytes on average (default: ${DEFAULT-VALUE}).")
    long interval;

    @Option(names = "--live", description = "Report only the sampled objects still alive at the end that survived at least --min-age GCs,"
            + " with how many GCs they survived.")
    boolean live;

    @Option(names = "--min-age", paramLabel = "N", description = "With --live: the GCs an object must have survived to be reported"
            + " (default: 1; 0 also reports objects no GC has looked at yet).")
    Integer minAge;

    AllocCommand(CliContext context) {
        this.context = context;
    }

    @Override
    public Integer call() {
        report.validate();
        if (minAge != null && !live) {
            throw new CliFailure(ExitCode.USAGE, "--min-age applies to --live only");
        }
        if (minAge != null && minAge < 0) {
            throw new CliFailure(ExitCode.USAGE, "--min-age takes a number of GCs, 0 or more");
        }
        try (AgentClient client = context.connect(target)) {
            VmInfo vm = live ? client.vm() : null;
            if (live) {
                refuseUntrueAges(vm);
            }
            client.call("alloc.start", startRequest(vm), Map.class);
            boolean majorOnly = live && vm.flagOn("UseZGC");
            SamplingWindow.run(context, report.duration, () -> print(client.call("alloc.stop", Map.of(), AllocReport.class), majorOnly));
        }
        return ExitCode.OK.code();
    }

    /**
     * ZGC clears weak refs only in its major collections (its old generation's marking): only those
     * age a sample. It and Shenandoah clear them concurrently, after marking, so the agent counts a
     * collection only once a later one is seen; collectors that clear them in a pause let it count
     * each collection at once.
     */
    private Map<String, Object> startRequest(VmInfo vm) {
        if (!live) {
            return Map.of("interval", interval);
        }
        return Map.of("interval", interval, "live", true, "minAge", minAge == null ? 1 : minAge,
                "weakRefsClearedInPauses", weakRefsClearedInPauses(vm));
    }

    private static boolean weakRefsClearedInPauses(VmInfo vm) {
        return vm.flagOn("UseSerialGC") || vm.flagOn("UseParallelGC") || vm.flagOn("UseG1GC");
    }

    /**
     * Under -Xcheck:jni, IsSameObject resolves the weak ref it is given with a strong load, which
     * keeps the object alive through a marking in progress: on a collector that marks
     * concurrently, every sample the agent checks while it marks survives that collection, garbage
     * too, and would be reported as a survivor. Collectors that clear weak refs in a pause are not
     * misled about young objects; G1's concurrent marking can keep a dead old one to the next.
     */
    private void refuseUntrueAges(VmInfo vm) {
        if (!vm.flagOn("CheckJNICalls") || weakRefsClearedInPauses(vm)) {
            return;
        }
        String collector = vm.flagOn("UseZGC") ? "ZGC" : vm.flagOn("UseShenandoahGC") ? "Shenandoah" : "this collector";
        throw new CliFailure(ExitCode.FAILURE, "alloc --live cannot tell survivors from garbage in JVM " + target.target + ": on "
                + collector + " with -Xcheck:jni, each look at a sampled object keeps it alive through a concurrent marking;"
                + " run the JVM without -Xcheck:jni, or use heap --count");
    }

    private void print(AllocReport result, boolean majorOnly) {
        if (live && result.live() == null) {
            throw new CliFailure(ExitCode.FAILURE, "the agent resident in JVM " + target.target
                    + " predates alloc --live: detach it (jvmti-cli detach) and run again");
        }
        if (report.html != null) {
            String title = live ? "Live objects in JVM " + target.target + " (survived " + result.live().minAge() + "+ GCs), estimated bytes"
                    : "Allocations in JVM " + target.target + ", estimated bytes";
            report.writeHtml(context, FlameGraph.html(title, "bytes",
                    AllocView.flame(result)));
        }
        if (report.collapsed) {
            context.out().print(FlameGraph.collapsed(AllocView.flame(result)));
            context.out().flush();
        } else if (report.json) {
            JsonOutput.print(context.out(), AllocView.document(result, majorOnly));
        } else {
            AllocView.print(context.out(), result, report.top, majorOnly);
        }
    }
}
