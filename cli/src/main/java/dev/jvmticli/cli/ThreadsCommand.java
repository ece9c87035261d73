package dev.jvmticli.cli;

import dev.jvmticli.analysis.CpuTop;
import dev.jvmticli.analysis.PauseDelta;
import dev.jvmticli.client.AgentClient;
import dev.jvmticli.client.RunningThread;
import dev.jvmticli.client.StackDump;
import dev.jvmticli.client.StacksRequest;
import dev.jvmticli.client.ThreadEntry;
import dev.jvmticli.client.ThreadList;
import dev.jvmticli.client.ThreadStack;
import dev.jvmticli.client.ThreadsRequest;
import dev.jvmticli.client.VirtualDump;
import dev.jvmticli.client.VmThread;
import dev.jvmticli.client.VthreadsRequest;
import dev.jvmticli.failure.CliFailure;
import dev.jvmticli.failure.ExitCode;
import dev.jvmticli.render.JsonOutput;
import dev.jvmticli.render.ThreadDumpText;
import dev.jvmticli.render.ThreadTable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "threads", mixinStandardHelpOptions = true,
        description = "List every live platform thread (id, state, CPU, daemon, priority, group) and the JVM's own threads (GC, compiler, "
                + "VM Thread, ...); --virtual for virtual threads.")
final class ThreadsCommand implements Callable<Integer> {
    private static final Set<String> STATES = Set.of("NEW", "RUNNABLE", "BLOCKED", "WAITING", "TIMED_WAITING", "TERMINATED");

    static final String NO_VM_THREADS = "The JVM's own threads are not listed: this JVM does not name them (not HotSpot, or without java.management).";

    private final CliContext context;

    @Mixin
    TargetOption target = new TargetOption();

    @Mixin
    ThreadKinds kinds = new ThreadKinds();

    @Option(names = "--json", description = "Print one JSON document instead of a table.")
    boolean json;

    @Option(names = "--summary", description = "Only the number of threads in each state (and, for virtual threads, mounted and pinned).")
    boolean summary;

    @Option(names = "--state", split = ",", paramLabel = "STATE",
            description = "Only threads in these states (RUNNABLE, BLOCKED, WAITING, TIMED_WAITING), comma-separated.")
    List<String> states;

    @Option(names = "--name", paramLabel = "GLOB", completionCandidates = ThreadCompletion.class, description = "Only threads whose name matches the glob (* and ?); none matching fails (exit 1).")
    String nameGlob;

    @Option(names = "--sort", paramLabel = "KEY", description = "Sort by cpu, name, state or id (default: ${DEFAULT-VALUE}).")
    SortKey sort = SortKey.id;

    @Option(names = "--top", paramLabel = "N", description = "Show the N busiest threads by CPU used during --interval.")
    Integer top;

    @Option(names = "--kind", paramLabel = "KIND",
            description = "java: Java threads; vm: the JVM's own threads (GC, compiler, VM Thread, ...), which JVMTI does not show; "
                    + "all: both (default: ${DEFAULT-VALUE}).")
    Kind kind = Kind.all;

    @Option(names = "--stacks", description = "With --top: each Java thread of the list followed by its stack, taken at the end of the interval.")
    boolean withStacks;

    @Option(names = "--interval", paramLabel = "DURATION", defaultValue = "1s", converter = DurationConverter.class,
            description = "The measuring interval of --top (default: ${DEFAULT-VALUE}).")
    Duration interval = Duration.ofSeconds(1);

    ThreadsCommand(CliContext context) {
        this.context = context;
    }

    enum Kind {
        java, vm, all;

        boolean java() {
            return this != vm;
        }

        boolean vm() {
            return this != java;
        }
    }

    /**
     * Java threads by id, then the JVM's own in the JVM's order (a stable sort keeps it). A class, not
     * composed lambdas, as the orders below are made only when asked for: every lambda's first use
     * costs a cold start, and those of {@code Comparator}'s own methods are spun at run time, with
     * ASM, even with a CDS archive.
     */
    private static final Comparator<RunningThread> BY_ID = new Comparator<>() {
        @Override
        public int compare(RunningThread a, RunningThread b) {
            boolean aVm = a instanceof VmThread;
            if (aVm != b instanceof VmThread) {
                return aVm ? 1 : -1;
            }
            return Long.compare(a instanceof ThreadEntry java ? java.id() : 0, b instanceof ThreadEntry java ? java.id() : 0);
        }
    };

    enum SortKey {
        cpu, name, state, id;

        /** The order, ties broken by {@link #BY_ID}. */
        Comparator<RunningThread> order() {
            return switch (this) {
                case cpu -> Comparator.comparingLong(RunningThread::cpuNanos).reversed().thenComparing(BY_ID);
                case name -> Comparator.comparing(RunningThread::name, Comparator.nullsFirst(Comparator.<String>naturalOrder())).thenComparing(BY_ID);
                case state -> Comparator.comparing(RunningThread::state, Comparator.nullsLast(Comparator.<String>naturalOrder())).thenComparing(BY_ID);
                case id -> BY_ID;
            };
        }
    }

    @Override
    public Integer call() {
        Set<String> wanted = wantedStates();
        Pattern name = nameGlob == null ? null : Glob.toPattern(nameGlob);
        if (top != null && top <= 0) {
            throw new CliFailure(ExitCode.USAGE, "--top takes a positive number");
        }
        if (top != null && kinds.virtualThreads()) {
            throw new CliFailure(ExitCode.USAGE, "--top measures CPU time, which the JVM does not count per virtual thread");
        }
        if (summary && (top != null || wanted != null || name != null)) {
            throw new CliFailure(ExitCode.USAGE, "--summary counts every thread: it does not go with --top, --state or --name");
        }
        if (kind == Kind.vm && kinds.virtualThreads()) {
            throw new CliFailure(ExitCode.USAGE, "--kind vm lists the JVM's own threads: it does not go with --virtual or --all");
        }
        if (withStacks && top == null) {
            throw new CliFailure(ExitCode.USAGE, "--stacks goes with --top");
        }
        try (AgentClient client = context.connect(target)) {
            if (top != null) {
                printTop(client, wanted, name);
            } else if (summary) {
                printSummary(client);
            } else {
                printList(client, wanted, name);
            }
        }
        return ExitCode.OK.code();
    }

    private void printList(AgentClient client, Set<String> wanted, Pattern name) {
        ThreadList answer = kinds.platform() ? client.threads(ThreadsRequest.JAVA_THREADS.withVmThreads(kind.vm())) : new ThreadList(true, List.of());
        List<ThreadEntry> platform = kind.java() ? answer.threads() : List.of();
        List<VmThread> vm = answer.vmThreads() == null ? List.of() : answer.vmThreads();
        VirtualDump vthreads = kinds.virtualRequired() ? client.vthreads(VthreadsRequest.of(null))
                : client.vthreadsIfAny(VthreadsRequest.of(null).withMountedOnly(!kinds.virtualThreads())).orElse(null);
        List<ThreadEntry> virtual = new ArrayList<>();
        Map<Long, Long> carried = new HashMap<>();
        if (vthreads != null) {
            vthreads.threads().forEach(v -> {
                virtual.add(v.thread());
                if (v.thread().carrierId() != null) {
                    carried.put(v.thread().carrierId(), v.thread().id());
                }
            });
        }
        List<RunningThread> candidates = new ArrayList<>(platform);
        candidates.addAll(vm);
        if (kinds.virtualThreads()) {
            candidates.addAll(virtual);
        }
        requireMatch(candidates, name);
        platform = filter(platform.stream().map(t -> carried.containsKey(t.id()) ? t.carrying(carried.get(t.id())) : t).toList(), wanted, name);
        platform.sort(sort.order());
        List<VmThread> vmShown = filter(vm, wanted, name);
        List<ThreadEntry> shown = kinds.virtualThreads() ? filter(virtual, wanted, name) : new ArrayList<>();
        shown.sort(sort.order());
        if (json) {
            Map<String, Object> document = new LinkedHashMap<>();
            if (kind.java()) {
                List<ThreadEntry> all = new ArrayList<>(platform);
                all.addAll(shown);
                document.put("threads", all);
            }
            if (kind.vm() && answer.vmThreads() != null) {
                document.put("vmThreads", vmShown);
            }
            JsonOutput.print(context.out(), document);
            return;
        }
        if (kinds.platform()) {
            List<RunningThread> rows = new ArrayList<>(platform);
            rows.addAll(vmShown);
            rows.sort(sort.order());
            ThreadTable.print(context.out(), rows);
            if (kind.vm() && answer.vmThreads() == null) {
                context.out().println(NO_VM_THREADS);
            }
            if (!kinds.virtualThreads() && kind.java() && vthreads != null && vthreads.complete() && vthreads.found() != null
                    && vthreads.found() > 0) {
                context.out().println(virtualHint(vthreads.found(), virtual.size()));
            }
        }
        if (kinds.virtualThreads() && vthreads == null) {
            context.out().println();
            context.out().println("The target JVM has no virtual threads (they need JDK 21 or later).");
        } else if (kinds.virtualThreads()) {
            if (kinds.platform()) {
                context.out().println();
            }
            ThreadTable.printVirtual(context.out(), shown);
            context.out().println(shown.size() + " virtual threads" + (shown.isEmpty() ? "." : ": " + shown.stream()
                    .collect(Collectors.groupingBy(ThreadEntry::state, TreeMap::new, Collectors.counting()))
                    .entrySet().stream().map(e -> e.getValue() + " " + e.getKey()).collect(Collectors.joining(", "))
                    + ", " + shown.stream().filter(t -> t.carrierId() != null).count() + " mounted, "
                    + shown.stream().filter(ThreadEntry::pinned).count() + " pinned."));
        }
        context.out().flush();
    }

    /**
     * That virtual threads exist beside the platform threads listed, and how to see them: the count
     * comes with the request for the carriers (the JDK's own count of the root container's when none
     * is mounted, see vthreads.c).
     */
    private static String virtualHint(long found, int mounted) {
        return found + (found == 1 ? " virtual thread" : " virtual threads") + " not listed (" + mounted
                + " mounted): threads --virtual lists them, --all with the platform threads.";
    }

    private void printSummary(AgentClient client) {
        Map<String, ThreadTable.Summary> byKind = new LinkedHashMap<>();
        if (kinds.platform()) {
            ThreadList answer = client.threads(ThreadsRequest.JAVA_THREADS.withVmThreads(kind.vm()));
            List<ThreadEntry> platform = answer.threads();
            if (kind.java()) {
                byKind.put("platform", new ThreadTable.Summary(platform.size(), platform.stream()
                        .collect(Collectors.groupingBy(ThreadEntry::state, TreeMap::new, Collectors.counting())), null, null));
            }
            if (answer.vmThreads() != null) {
                byKind.put("vm", new ThreadTable.Summary(answer.vmThreads().size(), answer.vmThreads().stream().filter(t -> t.state() != null)
                        .collect(Collectors.groupingBy(VmThread::state, TreeMap::new, Collectors.counting())), null, null));
            }
        }
        if (kinds.virtualThreads()) {
            VirtualDump.Summary s = kinds.virtualRequired() ? client.vthreads(VthreadsRequest.counts()).summary()
                    : client.vthreadsIfAny(VthreadsRequest.counts()).map(VirtualDump::summary).orElse(null);
            if (s != null) {
                byKind.put("virtual", new ThreadTable.Summary(s.count(), s.byState(), s.mounted(), s.pinned()));
            }
        }
        if (json) {
            JsonOutput.print(context.out(), byKind);
        } else {
            ThreadTable.printSummary(context.out(), byKind);
        }
    }

    /**
     * The busiest threads over the interval, Java and the JVM's own ranked together, each with its
     * user and system CPU and allocation read with its CPU time, and the JVM's pauses between the
     * reads. With --stacks the second measure is a stack dump, so that each Java thread's stack is of
     * the moment its CPU was read. The agent's own thread is left out.
     */
    private void printTop(AgentClient client, Set<String> wanted, Pattern name) {
        // the span is the target's own, from the agent's first CPU read to its second (CpuSpan)
        ThreadsRequest request = ThreadsRequest.JAVA_THREADS.withVmThreads(kind.vm()).withUsage(true);
        long askedAt = System.nanoTime();
        ThreadList first = client.threads(request);
        StandardOutput.pause(client, interval);
        long askedAgainAt = System.nanoTime();
        StackDump dump = withStacks ? client.stacks(StacksRequest.of(null, MaxDepth.DEFAULT).withOwned(true).withVmThreads(kind.vm()).withUsage(true))
                : null;
        ThreadList second = dump != null ? new ThreadList(true, dump.threads().stream().map(ThreadStack::thread).toList(), dump.vmThreads(),
                dump.cpuRead(), dump.usage()) : client.threads(request);
        CpuSpan span = CpuSpan.between(first.cpuRead(), second.cpuRead(), askedAt, askedAgainAt);
        List<RunningThread> before = running(first);
        List<RunningThread> now = running(second);
        requireMatch(now, name);
        boolean usage = first.usage() != null && second.usage() != null;
        List<CpuTop.Entry<RunningThread>> rows = CpuTop.between(before, filter(now, wanted, name), usage ? first.usage().threads() : Map.of(),
                usage ? second.usage().threads() : Map.of(), span.nanos(), top);
        PauseDelta pauses = usage && first.usage().pausesAfter() != null && second.usage().pausesBefore() != null
                ? PauseDelta.between(first.usage().pausesAfter(), second.usage().pausesBefore()) : null;
        Map<Long, ThreadStack> stacks = dump == null ? Map.of()
                : dump.threads().stream().collect(Collectors.toMap(t -> t.thread().id(), t -> t, (a, b) -> a));
        if (json) {
            Map<String, Object> document = new LinkedHashMap<>();
            document.put("intervalMillis", span.millis());
            document.put("cpuReads", Arrays.asList(first.cpuRead(), second.cpuRead()));
            document.put("threads", dump == null ? rows : rows.stream().map(row -> withStack(row, stacks)).toList());
            if (pauses != null) {
                document.put("pauses", pauses);
            }
            JsonOutput.print(context.out(), document);
            return;
        }
        if (!span.fromAgent()) {
            context.out().println(CpuSpan.FROM_CLI);
        }
        ThreadTable.printTop(context.out(), rows, span.nanos(), usage);
        if (pauses != null) {
            ThreadTable.printPauses(context.out(), pauses);
        }
        List<ThreadStack> busiest = rows.stream().filter(row -> row.thread() instanceof ThreadEntry)
                .map(row -> stacks.get(((ThreadEntry) row.thread()).id())).filter(Objects::nonNull).toList();
        if (!busiest.isEmpty()) {
            context.out().println();
            StackDump javaOnly = new StackDump(dump.time(), dump.lockSource(), dump.lockFactsComplete(), dump.threads());
            ThreadDumpText.print(context.out(), javaOnly, busiest, client.jvm(), null);
        }
        context.out().flush();
    }

    /** The threads of the kinds asked for, with their CPU times; not the agent's own. */
    private List<RunningThread> running(ThreadList answer) {
        List<RunningThread> threads = new ArrayList<>();
        if (kind.java()) {
            answer.threads().stream().filter(t -> !t.agent()).forEach(threads::add);
        }
        if (answer.vmThreads() != null) {
            threads.addAll(answer.vmThreads());
        }
        return threads;
    }

    /** A row of --top --json with its thread's frames and lock facts, for a Java thread. */
    private static Map<String, Object> withStack(CpuTop.Entry<RunningThread> row, Map<Long, ThreadStack> stacks) {
        Map<String, Object> entry = new LinkedHashMap<>();
        entry.put("thread", row.thread());
        entry.put("cpuNanosInInterval", row.cpuNanosInInterval());
        entry.put("cpuPercent", row.cpuPercent());
        if (row.userNanosInInterval() != null) {
            entry.put("userNanosInInterval", row.userNanosInInterval());
        }
        if (row.systemNanosInInterval() != null) {
            entry.put("systemNanosInInterval", row.systemNanosInInterval());
        }
        if (row.allocatedBytesInInterval() != null) {
            entry.put("allocatedBytesInInterval", row.allocatedBytesInInterval());
        }
        ThreadStack stack = row.thread() instanceof ThreadEntry t ? stacks.get(t.id()) : null;
        if (stack != null) {
            entry.put("frames", stack.frames());
            entry.put("locked", stack.locked());
            if (stack.waitingFor() != null) {
                entry.put("waitingFor", stack.waitingFor());
            }
            if (stack.waitUnnamed()) {
                entry.put("waitUnnamed", true);
            }
        }
        return entry;
    }

    private Set<String> wantedStates() {
        if (states == null) {
            return null;
        }
        Set<String> wanted = states.stream().map(s -> s.trim().toUpperCase(Locale.ROOT)).collect(Collectors.toSet());
        for (String state : wanted) {
            if (!STATES.contains(state)) {
                throw new CliFailure(ExitCode.USAGE, "unknown state '" + state + "' (expected one of " + String.join(", ", Arrays.stream(Thread.State.values()).map(Enum::name).toList()) + ")");
            }
        }
        return wanted;
    }

    /** A name that matches no live thread fails, as stacks --thread does (README, exit codes). */
    private void requireMatch(List<? extends RunningThread> threads, Pattern name) {
        if (name != null && threads.stream().noneMatch(t -> t.name() != null && name.matcher(t.name()).matches())) {
            throw new CliFailure(ExitCode.FAILURE, "no live thread matches '" + nameGlob + "'");
        }
    }

    private static <T extends RunningThread> List<T> filter(List<T> threads, Set<String> states, Pattern name) {
        return threads.stream()
                .filter(t -> states == null || states.contains(t.state()))
                .filter(t -> name == null || (t.name() != null && name.matcher(t.name()).matches()))
                .collect(Collectors.toList());
    }
}
