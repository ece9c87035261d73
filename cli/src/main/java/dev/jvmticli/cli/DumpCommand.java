package dev.jvmticli.cli;

import dev.jvmticli.analysis.CpuTop;
import dev.jvmticli.analysis.Deadlocks;
import dev.jvmticli.analysis.Histogram;
import dev.jvmticli.analysis.LockTable;
import dev.jvmticli.analysis.MainWait;
import dev.jvmticli.analysis.OwnableSynchronizers;
import dev.jvmticli.analysis.ProfileSplit;
import dev.jvmticli.attach.TargetProcess;
import dev.jvmticli.client.AgentClient;
import dev.jvmticli.client.CpuRead;
import dev.jvmticli.client.AgentError;
import dev.jvmticli.client.HeapPathsAnswer;
import dev.jvmticli.client.HeapPathsReport;
import dev.jvmticli.client.HeapPathsRequest;
import dev.jvmticli.client.HeapReport;
import dev.jvmticli.client.Hello;
import dev.jvmticli.client.MemoryReport;
import dev.jvmticli.client.ProfileReport;
import dev.jvmticli.client.StackDump;
import dev.jvmticli.client.ThreadEntry;
import dev.jvmticli.client.ThreadStack;
import dev.jvmticli.client.ThreadList;
import dev.jvmticli.client.VmInfo;
import dev.jvmticli.failure.CliFailure;
import dev.jvmticli.failure.ExitCode;
import dev.jvmticli.render.DeadlockText;
import dev.jvmticli.render.DumpSummary;
import dev.jvmticli.render.FlameGraph;
import dev.jvmticli.render.HeapPathsView;
import dev.jvmticli.render.HeapView;
import dev.jvmticli.render.MemoryView;
import dev.jvmticli.render.MonitorsText;
import dev.jvmticli.render.ProfileView;
import dev.jvmticli.render.ThreadDumpText;
import dev.jvmticli.render.ThreadTable;
import dev.jvmticli.render.TraceSummary;
import dev.jvmticli.render.VmText;
import dev.jvmticli.render.WaitsSummary;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "dump", mixinStandardHelpOptions = true,
        description = "Write everything an incident ticket needs into a directory: per round threads, stacks (jstack -l "
            + "text and JSON), monitors, deadlocks and the busiest threads; once the JVM's facts (and with "
            + "--profile a CPU profile); summary.md for a person and index.json listing every file.")
final class DumpCommand implements Callable<Integer> {
    private static final int BUSIEST = 10;
    private static final int HISTOGRAM_CLASSES = 100;
    private static final int GROWN_CLASSES = 15;
    private static final int HOTTEST_METHODS = 10;
    /** With --heap: the classes that grew most whose paths from GC roots are looked for, all in one walk of the heap. */
    private static final int GROWN_PATHS_CLASSES = 3;
    private static final int GROWN_PATHS_EACH = 3;
    private static final long GROWN_PATHS_MAX_OBJECTS = 1_000_000;
    private static final Duration PROFILE_INTERVAL = Duration.ofMillis(10);

    private final CliContext context;

    @Mixin
    TargetOption target;

    @Option(names = "--out", required = true, paramLabel = "DIR", description = "The directory to write: a new or empty one of this user that no one else can write (made 0700 if missing).")
    Path out;

    @Option(names = "--count", paramLabel = "N", defaultValue = "1", description = "Rounds to take (default: ${DEFAULT-VALUE}).")
    int count;

    @Option(names = "--interval", paramLabel = "DURATION", defaultValue = "5s", converter = DurationConverter.class,
            description = "Time between rounds; the busiest threads of each round but the last are measured over it, the last round's over a wait of at most a second (default: ${DEFAULT-VALUE}).")
    Duration interval;

    @Option(names = "--zip", description = "Also pack the directory into DIR.zip.")
    boolean zip;

    @Option(names = "--profile", paramLabel = "DURATION", converter = DurationConverter.class,
            description = {"Also a CPU profile (profile/collapsed.txt, profile/flame.html), started before the first round and stopped",
                "after the last one or after DURATION, whichever is later; summary.md lists the hottest methods."})
    Duration profile;

    @Option(names = "--no-pauses", description = "Do not record the JVM's pauses over the rounds (pauses/, and summary.md's longest pauses).")
    boolean noPauses;

    @Option(names = "--no-contention", description = "Do not record lock contention over the rounds, monitors nor parks on j.u.c locks"
            + " (contention/, and summary.md's most waited-on locks).")
    boolean noContention;

    @Option(names = "--heap", description = {"Also a class histogram at the first and the last round (all objects, no GC; each pauses the target),",
        "and the classes that grew most in summary.md, with the roots that hold the first 3 (heap --paths: one walk of the heap",
        "for the 3, a pause bounded by 1000000 objects)."})
    boolean heap;

    @Option(names = "--trace", paramLabel = "PATTERN", description = {"Also time every call of the methods PATTERN names over the rounds, as trace does",
        "(package.Class.method, '*' for any run of characters): trace/trace.txt and trace.json, and summary.md says their calls,",
        "p50, p99 and max and the slowest call's stack; the classes are put back at the end."})
    String trace;

    @Option(names = "--trace-threshold", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "With --trace: also group the stacks of the calls that took at least DURATION (trace --threshold).")
    Duration traceThreshold;

    DumpCommand(CliContext context) {
        this.context = context;
    }

    @Override
    public Integer call() {
        if (count < 1 || count > 1000) {
            throw new CliFailure(ExitCode.USAGE, "--count must be between 1 and 1000");
        }
        if (traceThreshold != null && trace == null) {
            throw new CliFailure(ExitCode.USAGE, "--trace-threshold goes with --trace");
        }
        MethodPattern traced = trace == null ? null : MethodPattern.parse(trace);
        TargetProcess process = target.resolve();
        try (DumpDirectory directory = new DumpDirectory(out, process.pid())) {
            dump(process, directory, traced);
            if (zip) {
                context.out().println("wrote " + directory.root() + " and " + directory.zip());
            } else {
                context.out().println("wrote " + directory.root() + " (" + directory.entries().size() + " files; start with summary.md)");
            }
        }
        return ExitCode.OK.code();
    }

    private void dump(TargetProcess process, DumpDirectory directory, MethodPattern traced) {
        try (AgentClient client = context.connect(process)) {
            Hello hello = client.hello();
            VmInfo vm = client.vm();
            directory.writeJson("jvm.json", 0, "vm", Map.of("hello", hello, "vm", vm));
            directory.write("jvm.txt", 0, "vm", printer -> VmText.print(printer, hello, vm));
            List<DumpSummary.Round> rounds = new ArrayList<>();
            List<Histogram> histograms = new ArrayList<>();
            long profileDeadline = System.nanoTime() + (profile == null ? 0 : profile.toNanos());
            DumpWaits waits = null;
            DumpTrace tracing = null;
            boolean profiling = false;
            try {
                if (profile != null) {
                    ProfileCommand.start(client, process, "cpu", PROFILE_INTERVAL);
                    profiling = true;
                }
                waits = DumpWaits.start(client, !noPauses, !noContention);
                tracing = traced == null ? null : DumpTrace.start(client, traced, traceThreshold);
                if (tracing != null && tracing.installed()) {
                    waits.traceProbesIn();
                } else if (tracing != null) {
                    context.err().println("jvmti-cli: dump goes on without --trace: " + tracing.missing());
                }
                Snapshot snapshot = waits.read(() -> Snapshot.take(client));
                for (int round = 1; round <= count; round++) {
                    int number = round;
                    Outcome outcome = round(client, directory, round, snapshot, waits);
                    waits.read(() -> {
                        writeMemory(client, directory, number, vm);
                        if (heap && (number == 1 || number == count)) {
                            histograms.add(writeHistogram(client, directory, number, HeapCommand.answerTimeout(context, vm)));
                        }
                        return null;
                    });
                    rounds.add(outcome.round());
                    snapshot = outcome.next();
                    progress(round, directory);
                }
                // before the pauses stop, so that putting the classes back is in their log, counted the dump's
                TraceSummary.Traced traceReport = tracing == null ? null : tracing.stop(client, directory);
                WaitsSummary.Waits waited = waits.stop(client, directory);
                boolean profiled = profiling;
                profiling = false; // what writes the profile stops it, failing or not
                ProfileSplit cpu = profiled ? writeProfile(client, directory, profileDeadline) : null;
                List<HeapPathsView.ClassPaths> grownPaths = heap
                        ? writeGrownPaths(client, directory, histograms, HeapCommand.answerTimeout(context, vm)) : List.of();
                directory.write("summary.md", 0, "summary", printer -> {
                    DumpSummary.print(printer, process.pid(), hello, vm.uptimeMillis(), rounds, traceReport, waited);
                    if (cpu != null) {
                        DumpSummary.printHottest(printer, cpu, HOTTEST_METHODS);
                    }
                    if (heap) {
                        HeapView.printGrowthMarkdown(printer, histograms, count, GROWN_CLASSES);
                        HeapPathsView.printRootsMarkdown(printer, grownPaths, grownPathsLimits());
                    }
                });
            } finally {
                // what the dump started and did not stop, ended now: a shell keeps its connection, and with it the sessions
                if (tracing != null) {
                    tracing.abandon(client);
                }
                if (waits != null) {
                    waits.abandon(client);
                }
                if (profiling) {
                    client.stopQuietly("profile.stop");
                }
            }
        } catch (CliFailure failure) {
            directory.recordFailure(failure.getMessage());
            throw failure;
        }
    }

    private static ProfileSplit writeProfile(AgentClient client, DumpDirectory directory, long deadline) {
        sleepUntil(deadline);
        ProfileReport report = ProfileCommand.stop(client);
        List<String> warnings = new ArrayList<>();
        ProfileSplit cpu = ProfileCommand.named(client, report, warnings::add);
        for (String warning : warnings) {
            directory.recordError(warning);
        }
        directory.write("profile/collapsed.txt", 0, "profile --collapsed --threads",
                printer -> printer.print(FlameGraph.collapsed(ProfileView.flame(cpu, true))));
        directory.write("profile/flame.html", 0, "profile --html --threads", printer -> printer.print(FlameGraph.html(
                "CPU profile (" + report.engine() + "), samples", "samples", ProfileView.flame(cpu, true))));
        directory.write("profile/profile.txt", 0, "profile", printer -> ProfileView.print(printer, report, cpu, HOTTEST_METHODS));
        return cpu;
    }

    private static void writeMemory(AgentClient client, DumpDirectory directory, int round, VmInfo vm) {
        String prefix = String.format(java.util.Locale.ROOT, "round-%03d/", round);
        MemoryReport memory = MemoryCommand.memory(client);
        VmInfo.Flag stackSize = vm.flags().get("ThreadStackSize");
        directory.write(prefix + "memory.txt", round, "memory", printer -> MemoryView.print(printer, memory, stackSize));
        directory.writeJson(prefix + "memory.json", round, "memory --json", Map.of("memory", memory));
    }

    /**
     * The paths from GC roots to the classes that grew most between the first and the last histogram
     * (heap-paths.txt, heap-paths.json): at most GROWN_PATHS_CLASSES classes, all answered from one
     * walk of the heap, so one pause; a walk the agent refuses (a heap past the bound) is written as
     * its refusal in each class's place, a class no longer loaded as such.
     */
    private static List<HeapPathsView.ClassPaths> writeGrownPaths(AgentClient client, DumpDirectory directory, List<Histogram> histograms,
                                                                  Duration answerTimeout) {
        if (histograms.size() < 2) {
            return List.of();
        }
        List<String> grown = Histogram.growth(histograms).stream().takeWhile(growth -> growth.bytesGrown() > 0).limit(GROWN_PATHS_CLASSES)
                .map(Histogram.Growth::className).toList();
        List<HeapPathsView.ClassPaths> found = new ArrayList<>();
        HeapPathsReport walk = null;
        if (!grown.isEmpty()) {
            try {
                HeapPathsAnswer answer = client.call(new HeapPathsRequest(grown, GROWN_PATHS_EACH, 30, GROWN_PATHS_MAX_OBJECTS), HeapPathsAnswer.class,
                        answerTimeout);
                for (HeapPathsAnswer.ClassPaths paths : answer.classes()) {
                    walk = answer.report(paths);
                    found.add(paths.loaded() ? new HeapPathsView.ClassPaths(paths.className(), walk, null)
                            : new HeapPathsView.ClassPaths(paths.className(), null, "no loaded class is named " + paths.className()));
                }
            } catch (AgentError refused) {
                grown.forEach(name -> found.add(new HeapPathsView.ClassPaths(name, null, refused.agentMessage())));
            }
        }
        HeapPathsReport oneWalk = walk;
        directory.write("heap-paths.txt", 0, "heap --paths CLASS --max-paths " + GROWN_PATHS_EACH + ", for each class that grew most, from one walk", printer -> {
            for (HeapPathsView.ClassPaths paths : found) {
                if (paths.report() == null) {
                    printer.println(HeapPathsView.readable(paths.className()) + ": " + paths.refusal());
                } else {
                    HeapPathsView.printPaths(printer, paths.className(), paths.report());
                }
                printer.println();
            }
            if (oneWalk != null) {
                printer.println("One " + HeapPathsView.pause(oneWalk));
            }
        });
        directory.writeJson("heap-paths.json", 0, "heap --paths CLASS --json, for each class that grew most, from one walk", Map.of("classes", found));
        return found;
    }

    private static String grownPathsLimits() {
        return "at most " + GROWN_PATHS_CLASSES + " classes, all from one walk of the heap (one pause of the target, bounded by "
                + GROWN_PATHS_MAX_OBJECTS + " objects)";
    }

    private static Histogram writeHistogram(AgentClient client, DumpDirectory directory, int round, Duration answerTimeout) {
        String prefix = String.format(java.util.Locale.ROOT, "round-%03d/", round);
        HeapReport report = HeapCommand.histogram(client, false, answerTimeout);
        Histogram histogram = Histogram.parse(report.histogram());
        directory.write(prefix + "heap.txt", round, "heap --top " + HISTOGRAM_CLASSES, printer -> {
            HeapView.printHistogram(printer, histogram, HISTOGRAM_CLASSES);
            printer.println(HeapView.pause(report));
        });
        Map<String, Object> document = new LinkedHashMap<>(); // safepoints may be null: not for Map.of
        document.put("safepoints", report.safepoints());
        document.put("elapsedNanos", report.elapsedNanos());
        document.put("instances", histogram.instances());
        document.put("bytes", histogram.bytes());
        document.put("classes", histogram.rows());
        directory.writeJson(prefix + "heap.json", round, "heap --json", document);
        return histogram;
    }

    /**
     * The threads, with when the agent read their CPU times (cpuRead, the target's clock) and when the CLI asked
     * for and got them (System.nanoTime): two snapshots' span is the agent's (CpuSpan); a round waits from its
     * answer, after the agent's reading, so the span is never shorter than asked.
     */
    private record Snapshot(List<ThreadEntry> threads, CpuRead cpuRead, long askedAt, long answeredAt) {
        static Snapshot take(AgentClient client) {
            long asked = System.nanoTime();
            ThreadList answer = client.threads();
            return new Snapshot(answer.threads(), answer.cpuRead(), asked, System.nanoTime());
        }
    }

    /** What a round found, and the snapshot that ends its interval and starts the next round. */
    private record Outcome(DumpSummary.Round round, Snapshot next) {
    }

    /** One round, starting from the snapshot taken at its start (which it writes too). */
    private Outcome round(AgentClient client, DumpDirectory directory, int round, Snapshot start, DumpWaits waits) {
        long readsBegan = waits.readBegins();
        List<ThreadEntry> threads = start.threads();
        String prefix = String.format(java.util.Locale.ROOT, "round-%03d/", round);
        directory.write(prefix + "threads.txt", round, "threads", printer -> ThreadTable.print(printer, threads));
        Map<String, Object> threadsJson = new LinkedHashMap<>();
        threadsJson.put("cpuRead", start.cpuRead());
        threadsJson.put("threads", threads);
        directory.writeJson(prefix + "threads.json", round, "threads --json", threadsJson);
        // platform and virtual threads (when the target has them), their lock facts resolved across the two
        StackDump stacks = Dumps.collect(client, Dumps.Request.of(null, MaxDepth.LIMIT).withOwned(true).withVmThreads(true).withVirtual(true));
        MainWait.Shared insideAtOnce = insideAtOnce(client, stacks);
        List<ThreadStack> platform = stacks.threads().stream().filter(t -> !t.thread().virtual()).toList();
        List<ThreadStack> virtual = stacks.threads().stream().filter(t -> t.thread().virtual()).toList();
        Set<Long> deadlocked = DeadlockSearch.members(DeadlockSearch.confirmed(client, Deadlocks.find(stacks), !virtual.isEmpty()));
        OwnableSynchronizers synchronizers = OwnableSynchronizers.parkedOn(stacks, client.cpuTimes(null), deadlocked,
                "only those some thread is parked on: dump does not walk the heap, stacks -l does");
        directory.write(prefix + "stacks.txt", round, "stacks -l", printer -> ThreadDumpText.print(printer, stacks, platform, client.jvm(),
                synchronizers));
        if (!virtual.isEmpty()) {
            directory.write(prefix + "virtual-stacks.txt", round, "stacks --virtual --group",
                    printer -> ThreadDumpText.printGroups(printer, stacks, virtual, client.jvm()));
        }
        directory.writeJson(prefix + "stacks.json", round, "stacks --all --json", stacks);
        List<LockTable.Lock> locks = LockTable.of(stacks);
        directory.write(prefix + "monitors.txt", round, "monitors; monitors --by-lock", printer -> {
            MonitorsText.printByThread(printer, stacks);
            printer.println();
            MonitorsText.printByLock(printer, locks);
        });
        directory.writeJson(prefix + "monitors.json", round, "monitors --by-lock --json", Map.of("locks", locks));
        DeadlockSearch.Result deadlocks = DeadlockSearch.run(client, true);
        directory.write(prefix + "deadlocks.txt", round, "deadlocks", printer -> DeadlockText.print(printer, deadlocks.cycles(), deadlocks.stacks()));
        directory.writeJson(prefix + "deadlocks.json", round, "deadlocks --json",
                Map.of("count", deadlocks.cycles().size(), "deadlocks", deadlocks.detailed()));

        // the last round measures the busiest threads over a wait of at most a second: nobody waits for a next round
        Duration window = round < count || interval.compareTo(Duration.ofSeconds(1)) < 0 ? interval : Duration.ofSeconds(1);
        waits.readEnded(readsBegan);
        sleepUntil(start.answeredAt() + window.toNanos());
        Snapshot next = waits.read(() -> Snapshot.take(client));
        CpuSpan span = CpuSpan.between(start.cpuRead(), next.cpuRead(), start.askedAt(), next.askedAt());
        List<CpuTop.Entry<ThreadEntry>> busiest = CpuTop.between(threads, next.threads(), span.nanos(), BUSIEST);
        directory.write(prefix + "busiest.txt", round, "threads --top " + BUSIEST, printer -> {
            if (window.compareTo(interval) < 0) {
                printer.println("The last round: measured over a wait of at most a second after its threads, not over --interval.");
            }
            if (!span.fromAgent()) {
                printer.println(CpuSpan.FROM_CLI);
            }
            ThreadTable.printTop(printer, busiest, span.nanos(), false);
        });
        return new Outcome(new DumpSummary.Round(round, stacks, deadlocks.detailed(), busiest, span.millis(), insideAtOnce), next);
    }

    /** Those likely holding what most threads wait for (MainWait), at one instant (HoldersAtOnce); null when not needed. */
    private static MainWait.Shared insideAtOnce(AgentClient client, StackDump stacks) {
        return MainWait.of(stacks).map(wait -> HoldersAtOnce.read(client, wait)).orElse(null);
    }

    private void progress(int round, DumpDirectory directory) {
        if (System.console() != null) {
            context.err().println("round " + round + "/" + count + " written (" + directory.entries().size() + " files so far)");
        }
    }

    private static void sleepUntil(long deadlineNanos) {
        long left = deadlineNanos - System.nanoTime();
        if (left <= 0) {
            return;
        }
        try {
            StandardOutput.sleep((left + 999_999) / 1_000_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CliFailure(ExitCode.FAILURE, "interrupted");
        }
    }
}
