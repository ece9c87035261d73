package dev.jvmticli.cli;

import dev.jvmticli.analysis.Deadlocks;
import dev.jvmticli.analysis.OwnableSynchronizers;
import dev.jvmticli.analysis.StackGroups;
import dev.jvmticli.client.AgentClient;
import dev.jvmticli.client.StackDump;
import dev.jvmticli.client.ThreadStack;
import dev.jvmticli.failure.ExitCode;
import dev.jvmticli.render.DeadlockText;
import dev.jvmticli.render.JsonOutput;
import dev.jvmticli.render.ThreadDumpText;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "stacks", mixinStandardHelpOptions = true,
        description = "All stack traces with lock information, in jstack's format (or JSON), the JVM's own threads among them as jstack "
                + "lists them, deadlocks at the end as jstack has them; --virtual for virtual threads.")
final class StacksCommand implements Callable<Integer> {
    /**
     * With virtual threads, the stacks are grouped unless --no-group when more threads than this
     * share one stack: a server's requests wait in a few places, and each place printed once per
     * request buries the answer (200 requests, 15,801 lines).
     */
    static final int GROUP_WHEN_SHARED_BY_MORE_THAN = 10;

    private final CliContext context;

    @Mixin
    TargetOption target = new TargetOption();

    @Mixin
    ThreadSelection selection = new ThreadSelection();

    @Mixin
    ThreadKinds kinds = new ThreadKinds();

    @Option(names = {"-l", "--locks"}, description = "Also list each thread's locked ownable synchronizers (as jstack -l).")
    boolean synchronizers;

    @Option(names = "--json", description = "Print one JSON document.")
    boolean json;

    @Option(names = "--max-depth", paramLabel = "N", description = "At most N frames per thread (default: ${DEFAULT-VALUE}).")
    int maxDepth = MaxDepth.DEFAULT;

    @Option(names = "--group", negatable = true,
            description = "Collapse threads with identical stacks into one entry with a count (the default with --virtual or --all "
                    + "when more than " + GROUP_WHEN_SHARED_BY_MORE_THAN + " threads share a stack; --no-group prints every thread).")
    Boolean group;

    StacksCommand(CliContext context) {
        this.context = context;
    }

    @Override
    public Integer call() {
        MaxDepth.check(maxDepth);
        try (AgentClient client = context.connect(target);
             ConcurrentDumpPrinter printer = printsAsItArrives() ? new ConcurrentDumpPrinter(context.out(), client.jvm(), kinds) : null) {
            Set<Long> ids = selection.resolve(client, kinds);
            StackDump dump = Dumps.collect(client, Dumps.Request.of(ids, maxDepth).withOwned(true).withKinds(kinds)
                    .withVmThreads(ids == null && kinds.platform()).withSynchronizers(synchronizers), printer);
            List<ThreadStack> shown = Dumps.shown(dump, kinds);
            boolean grouped = group != null ? group : kinds.virtualThreads() && sharedByMany(shown);
            if (json) {
                JsonOutput.print(context.out(), grouped ? Map.of("groups", StackGroups.of(shown)) : document(dump, shown, client, ids));
            } else if (grouped) {
                ThreadDumpText.printGroups(context.out(), dump, shown, client.jvm());
            } else {
                List<List<ThreadStack>> candidates = Deadlocks.find(dump); // while the printer may still be printing
                boolean printed = printer != null && printer.finish();
                List<List<ThreadStack>> deadlocks = DeadlockSearch.confirmed(client, candidates, kinds.virtualThreads());
                if (!printed) {
                    ThreadDumpText.print(context.out(), dump, shown, client.jvm(),
                            synchronizers ? takenWithTheFrames(client, dump, ids, deadlocks) : null);
                }
                if (!deadlocks.isEmpty()) {
                    DeadlockText.printSections(context.out(), deadlocks, dump);
                    context.out().println();
                    context.out().flush();
                }
            }
        }
        return ExitCode.OK.code();
    }

    private static boolean sharedByMany(List<ThreadStack> shown) {
        return shown.size() > GROUP_WHEN_SHARED_BY_MORE_THAN
                && StackGroups.of(shown).get(0).count() > GROUP_WHEN_SHARED_BY_MORE_THAN;
    }

    /**
     * Text of platform threads, ungrouped and without -l (whose synchronizers come after the
     * threads): the dump is printed while it is still being read.
     */
    private boolean printsAsItArrives() {
        return !json && !synchronizers && !Boolean.TRUE.equals(group) && !kinds.virtualThreads();
    }

    private Map<String, Object> document(StackDump dump, List<ThreadStack> shown, AgentClient client, Set<Long> ids) {
        List<List<ThreadStack>> deadlocks = DeadlockSearch.confirmed(client, Deadlocks.find(dump), kinds.virtualThreads());
        OwnableSynchronizers owned = synchronizers ? takenWithTheFrames(client, dump, ids, deadlocks)
                : OwnableSynchronizers.parkedOn(dump, client.cpuTimes(ids), DeadlockSearch.members(deadlocks),
                        "only those some thread is parked on, without -l");
        Map<String, Object> document = new LinkedHashMap<>();
        document.put("time", dump.time());
        document.put("jvm", client.jvm());
        document.put("lockSource", dump.lockSource());
        document.put("lockFactsComplete", dump.lockFactsComplete());
        document.put("threads", shown);
        if (dump.vmThreads() != null) {
            document.put("vmThreads", dump.vmThreads());
        }
        document.put("ownableSynchronizers", owned.byOwner());
        document.put("ownableSynchronizersComplete", owned.complete() && owned.notKnown().isEmpty());
        document.put("ownableSynchronizersNotKnown", owned.notKnown());
        return document;
    }

    /**
     * Every ownable synchronizer a platform thread owns (-l), taken by the agent with the frames at
     * one safepoint. An agent of an older build, resident in the target, does not take them: then
     * only those some thread is parked on.
     */
    private static OwnableSynchronizers takenWithTheFrames(AgentClient client, StackDump dump, Set<Long> ids,
                                                           List<List<ThreadStack>> deadlocks) {
        if (dump.synchronizers() != null) {
            return OwnableSynchronizers.ofOneMoment(dump.synchronizers(), dump);
        }
        return OwnableSynchronizers.parkedOn(dump, client.cpuTimes(ids), DeadlockSearch.members(deadlocks),
                "only those some thread is parked on; the agent in the target, of an older build, does not take them"
                        + " (detach it and ask again)");
    }
}
