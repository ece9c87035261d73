package dev.jvmticli.cli;

import dev.jvmticli.analysis.Histogram;
import dev.jvmticli.attach.TargetProcess;
import dev.jvmticli.client.AgentClient;
import dev.jvmticli.client.AgentError;
import dev.jvmticli.client.HeapDumpReport;
import dev.jvmticli.client.HeapDumpRequest;
import dev.jvmticli.client.HeapPathsAnswer;
import dev.jvmticli.client.HeapPathsReport;
import dev.jvmticli.client.HeapPathsRequest;
import dev.jvmticli.client.HeapReport;
import dev.jvmticli.client.HeapRequest;
import dev.jvmticli.client.VmInfo;
import dev.jvmticli.failure.CliFailure;
import dev.jvmticli.failure.ExitCode;
import dev.jvmticli.render.HeapPathsView;
import dev.jvmticli.render.HeapView;
import dev.jvmticli.render.JsonOutput;
import dev.jvmticli.render.Sizes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "heap", mixinStandardHelpOptions = true,
        description = {"A class histogram of the heap (the JDK's GC.class_histogram, run inside the target), and how long it paused the target.",
            "By default every object, garbage included, and no GC; --live runs a full GC first (as jmap -histo:live).",
            "With --dump FILE: instead, an .hprof written by the JVM's own heap dumper (as jcmd GC.heap_dump), as the JVM's user,"
                + " into a directory of the JVM's user (or root's) that nobody else can write, reached through no link; never over a file.",
            "With --count N: the classes that grew most in bytes between the first and the last of N histograms;"
                + " without --live each is taken right after a GC pause the target runs on its own (young garbage gone), waiting up to half the interval"
                + " (and saying when none came). On ZGC and Shenandoah every histogram holds only objects reachable from the roots, and none is waited for."})
final class HeapCommand implements Callable<Integer> {
    private static final Duration HISTOGRAM_BASE = Duration.ofSeconds(30);
    private static final Duration HISTOGRAM_PER_GIB = Duration.ofSeconds(10);
    /** The agent gives up on a histogram after 600 s (heap.c) and says so: its answer must still be waited for. */
    private static final Duration HISTOGRAM_LIMIT = Duration.ofSeconds(610);
    private static final long GIB = 1L << 30;
    /** The agent waits no longer (heap.c): it serves one request at a time. */
    private static final Duration GC_WAIT_LIMIT = Duration.ofSeconds(60);

    private final CliContext context;

    @Mixin
    TargetOption target;

    @Option(names = "--top", paramLabel = "N", defaultValue = "30", description = "Classes to show (default: ${DEFAULT-VALUE}).")
    int top;

    @Option(names = "--live", description = "Only live objects: the target runs a full GC first (a longer pause).")
    boolean live;

    @Option(names = "--count", paramLabel = "N", defaultValue = "1", description = "Histograms to take; above 1 shows the growth (default: ${DEFAULT-VALUE}).")
    int count;

    @Option(names = "--interval", paramLabel = "DURATION", defaultValue = "30s", converter = DurationConverter.class,
            description = "Time between histograms (default: ${DEFAULT-VALUE}); without --live, each waits up to half of it for a GC pause.")
    Duration interval;

    @Option(names = "--dump", paramLabel = "FILE",
            description = "Write a heap dump to FILE (an absolute path as the target sees it; a new file) instead of a histogram.")
    String dump;

    @Option(names = "--gz", paramLabel = "LEVEL", defaultValue = "0",
            description = "With --dump: gzip the dump at LEVEL, 1 (fastest) to 9 (smallest), where the JVM can (JDK 15+; default: none).")
    int gzLevel;

    @Option(names = "--json", description = "Print one JSON document instead of tables.")
    boolean json;

    @Option(names = "--paths", paramLabel = "CLASS", arity = "0..1", fallbackValue = "",
            description = "Instead of a histogram: the shortest paths from GC roots to the instances of CLASS (as heap prints it, or with [] for arrays),"
                + " grouped by root and by the fields on the way, with what each root keeps; one walk of the heap from its roots at a safepoint."
                + " With --from-live instead of CLASS: to the sampled objects alloc --live finds surviving, by allocation site.")
    String paths;

    @Option(names = "--from-live", description = "With --paths: sample allocations for --duration as alloc --live does, then the paths to the survivors.")
    boolean fromLive;

    @Option(names = "--duration", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "With --from-live: how long to sample (default: 10s); Ctrl-C ends it early and still reports.")
    Duration window;

    @Option(names = "--min-age", paramLabel = "N", description = "With --from-live: the GCs a sampled object must have survived (default: 1).")
    Integer minAge;

    @Option(names = "--sample-interval", paramLabel = "SIZE", converter = SizeConverter.class,
            description = "With --from-live: one sample per SIZE allocated bytes on average, at least 64k (default: 512k).")
    Long sampleInterval;

    @Option(names = "--max-paths", paramLabel = "N", defaultValue = "10", description = "With --paths: the paths to show, most instances first (default: ${DEFAULT-VALUE}).")
    int maxPaths;

    @Option(names = "--max-depth", paramLabel = "N", defaultValue = "30", description = "With --paths: the objects to name on a path, counted from the instance (default: ${DEFAULT-VALUE}).")
    int maxDepth;

    @Option(names = "--max-objects", paramLabel = "N", defaultValue = "1000000",
            description = "With --paths: refuse a heap with more objects reachable than this, or 4 references an object: the bound on the agent's memory in the target (default: ${DEFAULT-VALUE}).")
    long maxObjects;

    HeapCommand(CliContext context) {
        this.context = context;
    }

    @Override
    public Integer call() {
        if (top < 1) {
            throw new CliFailure(ExitCode.USAGE, "--top must be at least 1");
        }
        if (count < 1 || count > 1000) {
            throw new CliFailure(ExitCode.USAGE, "--count must be between 1 and 1000");
        }
        if (dump != null && paths != null) {
            throw new CliFailure(ExitCode.USAGE, "--dump and --paths are two commands: one at a time");
        }
        if (paths == null && (fromLive || window != null || minAge != null || sampleInterval != null)) {
            throw new CliFailure(ExitCode.USAGE, "--from-live, --duration, --min-age and --sample-interval go with --paths");
        }
        if (dump != null) {
            return heapDump();
        }
        if (gzLevel != 0) {
            throw new CliFailure(ExitCode.USAGE, "--gz goes with --dump");
        }
        if (paths != null) {
            return paths();
        }
        TargetProcess process = target.resolve();
        List<HeapReport> reports = new ArrayList<>();
        List<Histogram> histograms = new ArrayList<>();
        boolean reachableOnly;
        try (AgentClient client = context.connect(process)) {
            VmInfo vm = client.vm();
            reachableOnly = !live && (vm.flagOn("UseZGC") || vm.flagOn("UseShenandoahGC"));
            Duration gcWait = count > 1 && !live && !reachableOnly ? min(interval.dividedBy(2), GC_WAIT_LIMIT) : null;
            Duration answerTimeout = answerTimeout(context, vm).plus(gcWait == null ? Duration.ZERO : gcWait);
            long asked = 0;
            for (int round = 1; round <= count; round++) {
                if (round > 1) { // the requests an interval apart: a histogram comes at most gcWait after its request
                    Duration left = interval.minusNanos(System.nanoTime() - asked);
                    client.pause(left.isNegative() ? Duration.ZERO : left);
                }
                asked = System.nanoTime();
                HeapReport report = histogram(client, live, gcWait, answerTimeout);
                reports.add(report);
                histograms.add(Histogram.parse(report.histogram()));
                if (count > 1 && !json) {
                    context.err().printf("histogram %d of %d: %s%s%n", round, count, HeapView.gcWait(report), HeapView.pause(report));
                    context.err().flush();
                }
            }
        }
        if (json) {
            JsonOutput.print(context.out(), document(reports, histograms, reachableOnly));
            return ExitCode.OK.code();
        }
        if (count == 1) {
            HeapView.printHistogram(context.out(), histograms.get(0), top);
            context.out().println(HeapView.pause(reports.get(0)));
        } else {
            HeapView.printGrowth(context.out(), Histogram.growth(histograms), top);
            long apartNanos = reports.get(count - 1).startedNanos() - reports.get(0).startedNanos();
            context.out().printf("growth from histogram 1 to %d, %s ms apart, %s; first: %s, last: %s%n", count, Sizes.millis(apartNanos),
                    measured(reports, reachableOnly), totals(histograms.get(0)), totals(histograms.get(count - 1)));
        }
        context.out().flush();
        return ExitCode.OK.code();
    }

    private int heapDump() {
        if (count != 1) {
            throw new CliFailure(ExitCode.USAGE, "--dump writes one heap dump: no --count");
        }
        if (gzLevel < 0 || gzLevel > 9) {
            throw new CliFailure(ExitCode.USAGE, "--gz takes a level from 1 (fastest) to 9 (smallest)");
        }
        int slash = dump.lastIndexOf('/');
        if (!dump.startsWith("/") || slash == dump.length() - 1) {
            throw new CliFailure(ExitCode.USAGE, "--dump takes the new file's absolute path as the target sees it (a container's JVM: inside it): " + dump);
        }
        HeapDumpRequest request = new HeapDumpRequest(slash == 0 ? "/" : dump.substring(0, slash), dump.substring(slash + 1), live, gzLevel);
        TargetProcess process = target.resolve();
        HeapDumpReport report;
        try (AgentClient client = context.connect(process)) {
            report = client.call(request, HeapDumpReport.class, answerTimeout(context, client.vm()));
        } catch (AgentError e) {
            throw refusal(e);
        }
        if (json) {
            JsonOutput.print(context.out(), report);
        } else {
            HeapView.printDump(context.out(), report);
        }
        context.out().flush();
        return ExitCode.OK.code();
    }

    private int paths() {
        if (live || count != 1) {
            throw new CliFailure(ExitCode.USAGE, "--paths takes neither --live nor --count");
        }
        if (fromLive != paths.isBlank()) {
            throw new CliFailure(ExitCode.USAGE, fromLive ? "--paths --from-live takes no class name: its objects are alloc --live's survivors"
                    : "--paths takes a class name, or --from-live");
        }
        if (maxPaths < 1 || maxPaths > 1000) {
            throw new CliFailure(ExitCode.USAGE, "--max-paths must be between 1 and 1000");
        }
        if (maxDepth < 1 || maxDepth > 10000) {
            throw new CliFailure(ExitCode.USAGE, "--max-depth must be between 1 and 10000");
        }
        if (maxObjects < 10_000 || maxObjects > 200_000_000) {
            throw new CliFailure(ExitCode.USAGE, "--max-objects must be between 10000 and 200000000");
        }
        if (fromLive) {
            return HeapPathsFromLive.run(context, target, window == null ? Duration.ofSeconds(10) : window, sampleInterval == null ? 512L << 10 : sampleInterval,
                    minAge == null ? 1 : minAge, new HeapPathsFromLive.Limits(maxPaths, maxDepth, maxObjects), json);
        }
        if (window != null || minAge != null || sampleInterval != null) {
            throw new CliFailure(ExitCode.USAGE, "--duration, --min-age and --sample-interval go with --paths --from-live");
        }
        TargetProcess process = target.resolve();
        HeapPathsReport report;
        try (AgentClient client = context.connect(process)) {
            VmInfo vm = client.vm();
            HeapPathsAnswer answer = client.call(new HeapPathsRequest(List.of(paths), maxPaths, maxDepth, maxObjects), HeapPathsAnswer.class,
                    answerTimeout(context, vm));
            report = answer.report(answer.classes().get(0));
        }
        if (json) {
            JsonOutput.print(context.out(), report);
        } else {
            HeapPathsView.print(context.out(), paths, report);
        }
        context.out().flush();
        return ExitCode.OK.code();
    }

    /** The agent's refusals of a heap dump, as the exit codes README lists. */
    private static CliFailure refusal(AgentError e) {
        return switch (e.code()) {
            case "untrusted_directory", "file_exists", "bad_path" -> new CliFailure(ExitCode.USAGE, e.agentMessage());
            case "no_room" -> new CliFailure(ExitCode.NO_ROOM, e.agentMessage());
            case "unknown_command" -> new CliFailure(ExitCode.INCOMPATIBLE_AGENT,
                    "the agent in the target is older than this CLI and cannot write a heap dump: detach it (jvmti-cli detach <pid>) and retry");
            default -> e;
        };
    }

    /** One histogram through the resident agent. */
    static HeapReport histogram(AgentClient client, boolean live, Duration answerTimeout) {
        return histogram(client, live, null, answerTimeout);
    }

    /** One histogram, with gcWait not null right after the next GC pause of the target's own if one comes within gcWait. */
    private static HeapReport histogram(AgentClient client, boolean live, Duration gcWait, Duration answerTimeout) {
        HeapReport report = client.call(HeapRequest.HISTOGRAM.withLive(live).withGcWait(gcWait), HeapReport.class, answerTimeout);
        if (gcWait != null && report.afterGc() == null) {
            throw new CliFailure(ExitCode.INCOMPATIBLE_AGENT, "the agent in the target is older than this CLI and cannot wait for a GC: detach it (jvmti-cli detach <pid>) and retry");
        }
        return report;
    }

    /** What the histograms counted, so what the growth between them is of. */
    private String measured(List<HeapReport> reports, boolean reachableOnly) {
        if (live) {
            return "live objects only";
        }
        if (reachableOnly) {
            return "objects reachable from the roots only (ZGC and Shenandoah walk the heap from them), no GC forced";
        }
        long afterGc = reports.stream().filter(r -> r.afterGc() != null && r.afterGc().gcCame()).count();
        if (afterGc == reports.size()) {
            return "all objects, each histogram right after a GC pause of the target's own";
        }
        if (afterGc == 0) {
            return "all objects, garbage included: no GC pause of the target's own came while a histogram waited";
        }
        return "all objects, " + afterGc + " of " + reports.size() + " histograms right after a GC pause of the target's own, the others with garbage included";
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }

    /**
     * How long to wait for a histogram: --timeout when given, else a time that grows with the heap a
     * healthy JVM walks (and, with --live, collects first): 30 s and 10 s per GiB of its maximum heap,
     * bounded by the agent's own limit.
     */
    static Duration answerTimeout(CliContext context, VmInfo vm) {
        return context.givenTimeout().orElseGet(() -> {
            VmInfo.Flag maxHeap = vm.flags().get("MaxHeapSize");
            if (maxHeap == null || !maxHeap.value().matches("\\d{1,18}")) {
                return HISTOGRAM_LIMIT;
            }
            long gib = (Long.parseLong(maxHeap.value()) + GIB - 1) / GIB;
            Duration scaled = HISTOGRAM_BASE.plus(HISTOGRAM_PER_GIB.multipliedBy(gib));
            return scaled.compareTo(HISTOGRAM_LIMIT) < 0 ? scaled : HISTOGRAM_LIMIT;
        });
    }

    private static String totals(Histogram histogram) {
        String filler = histogram.filler().instances() == 0 ? "" : " (and " + Sizes.bytes(histogram.filler().bytes()) + " of GC fillers, dead space)";
        return Sizes.bytes(histogram.bytes()) + " in " + histogram.instances() + " instances" + filler;
    }

    private Map<String, Object> document(List<HeapReport> reports, List<Histogram> histograms, boolean reachableOnly) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("live", live);
        doc.put("reachableOnly", reachableOnly);
        List<Map<String, Object>> rounds = new ArrayList<>();
        for (int i = 0; i < reports.size(); i++) {
            Map<String, Object> round = new LinkedHashMap<>();
            round.put("startedNanos", reports.get(i).startedNanos());
            round.put("elapsedNanos", reports.get(i).elapsedNanos());
            if (reports.get(i).afterGc() != null) {
                round.put("afterGc", reports.get(i).afterGc());
            }
            round.put("safepoints", reports.get(i).safepoints());
            if (reports.get(i).earlierPauseIncluded()) {
                round.put("earlierPauseIncluded", true);
            }
            round.put("instances", histograms.get(i).instances());
            round.put("bytes", histograms.get(i).bytes());
            round.put("classes", histograms.get(i).top(top));
            round.put("filler", histograms.get(i).filler());
            rounds.add(round);
        }
        doc.put("histograms", rounds);
        if (reports.size() > 1) {
            List<Histogram.Growth> growth = Histogram.growth(histograms);
            doc.put("growthOf", measured(reports, reachableOnly));
            doc.put("growth", growth.subList(0, Math.min(top, growth.size())));
        }
        return doc;
    }
}
