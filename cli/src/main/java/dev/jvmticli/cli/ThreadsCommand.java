package dev.jvmticli.cli;

import dev.jvmticli.client.AgentClient;
import dev.jvmticli.client.ThreadEntry;
import dev.jvmticli.failure.CliFailure;
import dev.jvmticli.failure.ExitCode;
import dev.jvmticli.render.JsonOutput;
import dev.jvmticli.render.ThreadTable;
import dev.jvmticli.render.ThreadTable.TopEntry;
import java.time.Duration;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.function.Function;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "threads", mixinStandardHelpOptions = true, description = "List every live platform thread: id, state, CPU, daemon, priority, group.")
final class ThreadsCommand implements Callable<Integer> {
    private static final Set<String> STATES = Set.of("NEW", "RUNNABLE", "BLOCKED", "WAITING", "TIMED_WAITING", "TERMINATED");

    private final CliContext context;

    @Mixin
    TargetOption target;

    @Option(names = "--json", description = "Print one JSON document instead of a table.")
    boolean json;

    @Option(names = "--state", split = ",", paramLabel = "STATE",
            description = "Only threads in these states (RUNNABLE, BLOCKED, WAITING, TIMED_WAITING), comma-separated.")
    List<String> states;

    @Option(names = "--name", paramLabel = "GLOB", completionCandidates = ThreadCompletion.class, description = "Only threads whose name matches the glob (* and ?).")
    String nameGlob;

    @Option(names = "--sort", paramLabel = "KEY", defaultValue = "id", description = "Sort by cpu, name, state or id (default: ${DEFAULT-VALUE}).")
    SortKey sort;

    @Option(names = "--top", paramLabel = "N", description = "Show the N busiest threads by CPU used during --interval.")
    Integer top;

    @Option(names = "--interval", paramLabel = "DURATION", defaultValue = "1s", converter = DurationConverter.class,
            description = "The measuring interval of --top (default: ${DEFAULT-VALUE}).")
    Duration interval;

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
        try (AgentClient client = context.connect(target.resolve())) {
            if (top != null) {
                printTop(client, wanted, name);
            } else {
                List<ThreadEntry> threads = filter(client.threads().threads(), wanted, name);
                threads.sort(sort.order.thenComparingLong(ThreadEntry::id));
                if (json) {
                    JsonOutput.print(context.out(), Map.of("threads", threads));
                } else {
                    ThreadTable.print(context.out(), threads);
                }
            }
        }
        return ExitCode.OK.code();
    }

    private void printTop(AgentClient client, Set<String> wanted, Pattern name) {
        Map<Long, ThreadEntry> before = client.threads().threads().stream()
                .collect(Collectors.toMap(ThreadEntry::id, Function.identity(), (a, b) -> a));
        long start = System.nanoTime();
        sleep(interval);
        List<ThreadEntry> after = filter(client.threads().threads(), wanted, name);
        long elapsed = System.nanoTime() - start;
        List<TopEntry> rows = after.stream()
                .map(t -> {
                    ThreadEntry earlier = before.get(t.id());
                    long used = earlier == null || t.cpuNanos() < 0 ? Math.max(0, t.cpuNanos()) : t.cpuNanos() - earlier.cpuNanos();
                    return new TopEntry(t, used, 100.0 * used / elapsed);
                })
                .sorted(Comparator.comparingLong(TopEntry::cpuNanosInInterval).reversed().thenComparingLong(r -> r.thread().id()))
                .limit(top)
                .toList();
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

    private static List<ThreadEntry> filter(List<ThreadEntry> threads, Set<String> states, Pattern name) {
        return threads.stream()
                .filter(t -> states == null || states.contains(t.state()))
                .filter(t -> name == null || name.matcher(t.name()).matches())
                .collect(Collectors.toList());
    }

    private static void sleep(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CliFailure(ExitCode.FAILURE, "interrupted");
        }
    }
}
