package dev.jvmticli.cli;

import dev.jvmticli.analysis.LockTable;
import dev.jvmticli.analysis.StackGroups;
import dev.jvmticli.client.AgentClient;
import dev.jvmticli.client.StackDump;
import dev.jvmticli.failure.ExitCode;
import dev.jvmticli.render.JsonOutput;
import dev.jvmticli.render.ThreadDumpText;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "stacks", mixinStandardHelpOptions = true,
        description = "All stack traces with lock information, in jstack's format (or JSON).")
final class StacksCommand implements Callable<Integer> {
    private final CliContext context;

    @Mixin
    TargetOption target;

    @Mixin
    ThreadSelection selection;

    @Option(names = {"-l", "--locks"}, description = "Also list each thread's locked ownable synchronizers (as jstack -l).")
    boolean synchronizers;

    @Option(names = "--json", description = "Print one JSON document.")
    boolean json;

    @Option(names = "--max-depth", paramLabel = "N", defaultValue = "8192", description = "At most N frames per thread (default: ${DEFAULT-VALUE}).")
    int maxDepth;

    @Option(names = "--group", description = "Collapse threads with identical stacks into one entry with a count.")
    boolean group;

    StacksCommand(CliContext context) {
        this.context = context;
    }

    @Override
    public Integer call() {
        MaxDepth.check(maxDepth);
        try (AgentClient client = context.connect(target.resolve())) {
            Set<Long> ids = selection.resolve(client);
            StackDump dump = client.stacks(ids, maxDepth, true, true);
            if (json) {
                JsonOutput.print(context.out(), group ? Map.of("groups", StackGroups.of(dump.threads())) : document(dump, client));
            } else if (group) {
                ThreadDumpText.printGroups(context.out(), dump, client.jvm());
            } else {
                ThreadDumpText.print(context.out(), dump, client.jvm(), synchronizers);
            }
        }
        return ExitCode.OK.code();
    }

    private static Map<String, Object> document(StackDump dump, AgentClient client) {
        Map<String, Object> document = new LinkedHashMap<>();
        document.put("time", dump.time());
        document.put("jvm", client.jvm());
        document.put("lockSource", dump.lockSource());
        document.put("lockFactsComplete", dump.lockFactsComplete());
        document.put("threads", dump.threads());
        document.put("ownableSynchronizers", LockTable.synchronizersByOwner(dump));
        return document;
    }
}
