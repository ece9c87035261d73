package dev.jvmticli.cli;

import dev.jvmticli.analysis.CpuTop;
import dev.jvmticli.client.AgentClient;
import dev.jvmticli.client.ThreadEntry;
import dev.jvmticli.client.VirtualDump;
import dev.jvmticli.failure.CliFailure;
import dev.jvmticli.failure.ExitCode;
import dev.jvmticli.render.JsonOutput;
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
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "threads", mixinStandardHelpOptions = true,
        description = "List every live platform thread: id, state, CPU, daemon, priority, group; --virtual for virtual threads.")
final class ThreadsCommand implements Callable<Integer> {
    private static final Set<String> STATES = Set.of("NEW", "RUNNABLE", "BLOCKED", "WAITING", "TIMED_WAITING", "TERMINATED");

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

    @Option(names = "--interval", paramLabel = "DURATION", defaultValue = "1s", converter = DurationConverter.class,
            description = "The measuring interval of --top (default: ${DEFAULT-VALUE}).")
    Duration interval = Duration.ofSeconds(1);

    ThreadsCommand(CliContext context) {
        this.context = context;
    }

    enum SortKey {
        cpu(Comparator.comparingLong(ThreadEntry::cpuNanos).reversed()),
        name(Comparator.comparing(ThreadEntry::name)),
        state(Comparator.comparing(ThreadEntry::state)),
        id(Comparator.comparingLong(ThreadEntry::id));

        final Comparator<ThreadEntry> order;

        SortKey(Comparator<ThreadEntry> order) {
            this.order = order;
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
        try (AgentClient client = context.connect(target.resolve())) {
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
        List<ThreadEntry> platform = kinds.platform() ? client.threads().threads() : List.of();
        VirtualDump vthreads = kinds.virtualRequired() ? client.vthreads(null, false, 1, false, false, false, false)
                : client.vthreadsIfAny(null, false, 1, false, false, !kinds.virtualThreads(), false).orElse(null);
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
        List<ThreadEntry> candidates = new ArrayList<>(platform);
        if (kinds.virtualThreads()) {
            candidates.addAll(virtual);
        }
        requireMatch(candidates, name);
        platform = filter(platform.stream().map(t -> carried.containsKey(t.id()) ? t.carrying(carried.get(t.id())) : t).toList(), wanted, name);
        platform.sort(sort.order.thenComparingLong(ThreadEntry::id));
        List<ThreadEntry> shown = kinds.virtualThreads() ? filter(virtual, wanted, name) : new ArrayList<>();
        shown.sort(sort.order.thenComparingLong(ThreadEntry::id));
        if (json) {
            List<ThreadEntry> all = new ArrayList<>(platform);
            all.addAll(shown);
            JsonOutput.print(context.out(), Map.of("threads", all));
            return;
        }
        if (kinds.platform()) {
            ThreadTable.print(context.out(), platform);
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

    private void printSummary(AgentClient client) {
        Map<String, ThreadTable.Summary> byKind = new LinkedHashMap<>();
        if (kinds.platform()) {
            List<ThreadEntry> platform = client.threads().threads();
            byKind.put("platform", new ThreadTable.Summary(platform.size(), platform.stream()
                    .collect(Collectors.groupingBy(ThreadEntry::state, TreeMap::new, Collectors.counting())), null, null));
        }
        if (kinds.virtualThreads()) {
            VirtualDump.Summary s = kinds.virtualRequired() ? client.vthreads(null, false, 1, false, true, false, false).summary()
                    : client.vthreadsIfAny(null, false, 1, false, true, false, false).map(VirtualDump::summary).orElse(null);
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

    private void printTop(AgentClient client, Set<String> wanted, Pattern name) {
        List<ThreadEntry> before = client.threads().threads();
        long start = System.nanoTime();
        StandardOutput.pause(client, interval);
        List<ThreadEntry> now = client.threads().threads();
        requireMatch(now, name);
        List<ThreadEntry> after = filter(now, wanted, name);
        long elapsed = System.nanoTime() - start;
        List<CpuTop.Entry> rows = CpuTop.between(before, after, elapsed, top);
        if (json) {
            Map<String, Object> document = new LinkedHashMap<>();
            document.put("intervalMillis", elapsed / 1_000_000);
            document.put("threads", rows);
            JsonOutput.print(context.out(), document);
        } else {
            ThreadTable.printTop(context.out(), rows, elapsed / 1_000_000);
        }
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
    private void requireMatch(List<ThreadEntry> threads, Pattern name) {
        if (name != null && threads.stream().noneMatch(t -> name.matcher(t.name()).matches())) {
            throw new CliFailure(ExitCode.FAILURE, "no live thread matches '" + nameGlob + "'");
        }
    }

    private static List<ThreadEntry> filter(List<ThreadEntry> threads, Set<String> states, Pattern name) {
        return threads.stream()
                .filter(t -> states == null || states.contains(t.state()))
                .filter(t -> name == null || name.matcher(t.name()).matches())
                .collect(Collectors.toList());
    }
}
