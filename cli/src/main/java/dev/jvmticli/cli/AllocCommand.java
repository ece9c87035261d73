package dev.jvmticli.cli;

import dev.jvmticli.client.AgentClient;
import dev.jvmticli.client.AllocReport;
import dev.jvmticli.client.AllocStartRequest;
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
    /**
     * The shortest --interval without --force: sampling more often slows the target's own
     * allocation (docs/performance.md, "What sampling costs the target").
     */
    static final long MIN_INTERVAL = 64L << 10;

    /** The least the live table may follow at once, whatever the heap. */
    static final long MIN_LIVE_BUDGET = 8L << 20;

    private final CliContext context;

    @Mixin
    TargetOption target;

    @Mixin
    ReportOptions report;

    @Option(names = "--interval", paramLabel = "SIZE", defaultValue = "512k", converter = SizeConverter.class,
            description = "Take one sample per SIZE allocated bytes on average (default: ${DEFAULT-VALUE}).")
    long interval;

    @Option(names = "--force", description = "Sample at an --interval below 64k all the same, though it slows the target's allocation.")
    boolean force;

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
        if (interval < MIN_INTERVAL && !force) {
            throw new CliFailure(ExitCode.USAGE, "--interval below 64k slows the target's allocation (at 1 byte 60 times or more, at 16k"
                    + " by a third): the lowest allowed is 64k; add --force if you mean it");
        }
        if (minAge != null && !live) {
            throw new CliFailure(ExitCode.USAGE, "--min-age applies to --live only");
        }
        if (minAge != null && minAge < 0) {
            throw new CliFailure(ExitCode.USAGE, "--min-age takes a number of GCs, 0 or more");
        }
        try (AgentClient client = context.connect(target)) {
            VmInfo vm = live ? client.vm() : null;
            if (live) {
                refuseUntrueAges(vm, target.target);
            }
            client.call(startRequest(vm), Map.class);
            boolean majorOnly = live && vm.flagOn("UseZGC");
            SamplingWindow.run(context, client, report.duration, () -> print(client.call("alloc.stop", Map.of(), AllocReport.class), majorOnly));
        }
        return ExitCode.OK.code();
    }

    /**
     * ZGC clears weak refs only in its major collections (its old generation's marking): only those
     * age a sample. It and Shenandoah clear them concurrently, after marking, so the agent counts a
     * collection only once a later one is seen; collectors that clear them in a pause let it count
     * each collection at once.
     */
    private AllocStartRequest startRequest(VmInfo vm) {
        return live ? liveRequest(vm, interval, minAge == null ? 1 : minAge) : AllocStartRequest.sampling(interval);
    }

    /** alloc --live's start, for the collector vm runs. */
    static AllocStartRequest liveRequest(VmInfo vm, long interval, long minAge) {
        return AllocStartRequest.sampling(interval).withLive(true).withMinAge(minAge).withWeakRefsClearedInPauses(weakRefsClearedInPauses(vm))
                .withLiveBudgetBytes(liveBudget(vm)).withLiveLargestBytes(largestFollowed(vm));
    }

    /**
     * On G1, the largest sample the agent follows: half a region. A larger object is humongous,
     * in the old generation from the start, and the young collections whose clearing of the
     * agent's sentinels ages the samples never look at it (nor reclaim it early while a weak ref
     * points at it): its age would count collections that did not cover it. 0 (any) elsewhere.
     */
    static long largestFollowed(VmInfo vm) {
        return vm.flagOn("UseG1GC") ? flagBytes(vm, "G1HeapRegionSize") / 2 : 0;
    }

    /**
     * The sampled bytes the agent follows at once: 1% of the heap, at least MIN_LIVE_BUDGET. A weak
     * ref can keep its object in the heap after the application let go of it (G1 does not reclaim a
     * humongous object early; ZGC's young collections mark through weak refs), and a session must
     * not fill the heap with what it samples.
     */
    static long liveBudget(VmInfo vm) {
        return Math.max(MIN_LIVE_BUDGET, flagBytes(vm, "MaxHeapSize") / 100);
    }

    /** A size flag's bytes; 0 when the JVM did not tell. */
    private static long flagBytes(VmInfo vm, String name) {
        VmInfo.Flag flag = vm.flags().get(name);
        return flag != null && flag.value().matches("[0-9]{1,18}") ? Long.parseLong(flag.value()) : 0;
    }

    static boolean weakRefsClearedInPauses(VmInfo vm) {
        return vm.flagOn("UseSerialGC") || vm.flagOn("UseParallelGC") || vm.flagOn("UseG1GC");
    }

    /**
     * Under -Xcheck:jni, IsSameObject resolves the weak ref it is given with a strong load, which
     * keeps the object alive through a marking in progress: on a collector that marks
     * concurrently, every sample the agent checks while it marks survives that collection, garbage
     * too, and would be reported as a survivor. Collectors that clear weak refs in a pause are not
     * misled about young objects; G1's concurrent marking can keep a dead old one to the next.
     */
    static void refuseUntrueAges(VmInfo vm, String target) {
        if (!vm.flagOn("CheckJNICalls") || weakRefsClearedInPauses(vm)) {
            return;
        }
        String collector = vm.flagOn("UseZGC") ? "ZGC" : vm.flagOn("UseShenandoahGC") ? "Shenandoah" : "this collector";
        throw new CliFailure(ExitCode.FAILURE, "alloc --live cannot tell survivors from garbage in JVM " + target + ": on "
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
