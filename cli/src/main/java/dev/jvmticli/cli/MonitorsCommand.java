package dev.jvmticli.cli;

import dev.jvmticli.analysis.LockTable;
import dev.jvmticli.client.AgentClient;
import dev.jvmticli.client.StackDump;
import dev.jvmticli.client.ThreadStack;
import dev.jvmticli.failure.ExitCode;
import dev.jvmticli.render.JsonOutput;
import dev.jvmticli.render.MonitorsText;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "monitors", mixinStandardHelpOptions = true,
        description = "Monitors and synchronizers each thread (platform or virtual) owns or waits for, with their owners; --by-lock for the lock's view.")
final class MonitorsCommand implements Callable<Integer> {
    private final CliContext context;

    @Mixin
    TargetOption target = new TargetOption();

    @Option(names = "--by-lock", description = "One entry per lock: owner, threads waiting to enter, threads waiting to be notified; most contended first.")
    boolean byLock;

    @Option(names = "--json", description = "Print one JSON document.")
    boolean json;

    @Option(names = "--no-virtual", description = "Leave virtual threads out (they are included on JDK 21+).")
    boolean noVirtual;

    MonitorsCommand(CliContext context) {
        this.context = context;
    }

    @Override
    public Integer call() {
        try (AgentClient client = context.connect(target)) {
            StackDump dump = Dumps.collect(client, Dumps.Request.of(null, MaxDepth.LIMIT).withOwned(true).withVirtual(!noVirtual).withWaitingOnly(true));
            if (byLock) {
                List<LockTable.Lock> locks = LockTable.of(dump);
                if (json) {
                    JsonOutput.print(context.out(), Map.of("lockSource", dump.lockSource(), "locks", locks));
                } else {
                    MonitorsText.printByLock(context.out(), locks);
                }
            } else if (json) {
                Map<String, Object> document = new LinkedHashMap<>();
                document.put("lockSource", dump.lockSource());
                document.put("threads", dump.threads().stream().filter(MonitorsCommand::involved).toList());
                JsonOutput.print(context.out(), document);
            } else {
                MonitorsText.printByThread(context.out(), dump);
            }
        }
        return ExitCode.OK.code();
    }

    private static boolean involved(ThreadStack t) {
        return !t.locked().isEmpty() || t.waitingFor() != null || t.waitUnnamed();
    }
}
