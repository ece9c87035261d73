package dev.jvmticli.cli;

import dev.jvmticli.analysis.Deadlocks;
import dev.jvmticli.client.AgentClient;
import dev.jvmticli.client.StackDump;
import dev.jvmticli.client.ThreadStack;
import dev.jvmticli.failure.ExitCode;
import dev.jvmticli.render.DeadlockText;
import dev.jvmticli.render.JsonOutput;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "deadlocks", mixinStandardHelpOptions = true,
        description = "Find every cycle of threads (platform or virtual) waiting for monitors or ownable synchronizers (exit code 10 when one is found).")
final class DeadlocksCommand implements Callable<Integer> {
    private final CliContext context;

    @Mixin
    TargetOption target;

    @Option(names = "--json", description = "Print one JSON document.")
    boolean json;

    @Option(names = "--no-virtual", description = "Leave virtual threads out (they are included on JDK 21+).")
    boolean noVirtual;

    DeadlocksCommand(CliContext context) {
        this.context = context;
    }

    @Override
    public Integer call() {
        try (AgentClient client = context.connect(target.resolve())) {
            List<List<ThreadStack>> cycles = confirmed(client, Deadlocks.find(snapshot(client, null)));
            Set<Long> members = new LinkedHashSet<>();
            cycles.forEach(cycle -> cycle.forEach(t -> members.add(t.thread().id())));
            StackDump full = members.isEmpty() ? new StackDump(0, "", true, List.of())
                    : Dumps.collect(client, members, MaxDepth.LIMIT, true, true, true, !noVirtual, false);
            if (json) {
                List<List<ThreadStack>> detailed = cycles.stream()
                        .map(cycle -> cycle.stream().map(t -> find(full, t)).toList())
                        .toList();
                JsonOutput.print(context.out(), Map.of("count", cycles.size(), "deadlocks", detailed));
            } else {
                DeadlockText.print(context.out(), cycles, full);
            }
            return cycles.isEmpty() ? ExitCode.OK.code() : ExitCode.DEADLOCK_FOUND.code();
        }
    }

    /**
     * A snapshot is not atomic across threads, so a cycle could be assembled from moments that
     * never coexisted. A real deadlock does not move: keep only cycles whose every edge is still
     * there when their threads are asked again.
     */
    /** Who waits for whom, no frames: platform threads and, unless --no-virtual, virtual threads. */
    private StackDump snapshot(AgentClient client, Set<Long> ids) {
        return Dumps.collect(client, ids, 1, false, false, true, !noVirtual, false);
    }

    private List<List<ThreadStack>> confirmed(AgentClient client, List<List<ThreadStack>> candidates) {
        if (candidates.isEmpty()) {
            return candidates;
        }
        Set<Long> ids = new LinkedHashSet<>();
        candidates.forEach(cycle -> cycle.forEach(t -> ids.add(t.thread().id())));
        StackDump again = snapshot(client, ids);
        List<Map<Long, Long>> stillThere = Deadlocks.find(again).stream().map(Deadlocks::edgesOf).toList();
        List<List<ThreadStack>> confirmed = new ArrayList<>();
        for (List<ThreadStack> cycle : candidates) {
            if (stillThere.contains(Deadlocks.edgesOf(cycle))) {
                confirmed.add(cycle);
            }
        }
        return confirmed;
    }

    private static ThreadStack find(StackDump full, ThreadStack member) {
        return full.threads().stream().filter(t -> t.thread().id() == member.thread().id()).findFirst().orElse(member);
    }
}
