package dev.jvmticli.cli;

import dev.jvmticli.client.AgentClient;
import dev.jvmticli.failure.ExitCode;
import dev.jvmticli.render.DeadlockText;
import dev.jvmticli.render.JsonOutput;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "deadlocks", mixinStandardHelpOptions = true,
        description = "Find every cycle of threads (platform or virtual) waiting for monitors or ownable synchronizers (exit code 10 when one is found).")
final class DeadlocksCommand implements Callable<Integer> {
    private final CliContext context;

    @Mixin
    TargetOption target = new TargetOption();

    @Option(names = "--json", description = "Print one JSON document.")
    boolean json;

    @Option(names = "--no-virtual", description = "Leave virtual threads out (they are included on JDK 21+).")
    boolean noVirtual;

    DeadlocksCommand(CliContext context) {
        this.context = context;
    }

    @Override
    public Integer call() {
        try (AgentClient client = context.connect(target)) {
            DeadlockSearch.Result found = DeadlockSearch.run(client, !noVirtual);
            if (json) {
                JsonOutput.print(context.out(), Map.of("count", found.cycles().size(), "deadlocks", found.detailed()));
            } else {
                DeadlockText.print(context.out(), found.cycles(), found.stacks());
            }
            return found.cycles().isEmpty() ? ExitCode.OK.code() : ExitCode.DEADLOCK_FOUND.code();
        }
    }
}
