package dev.jvmticli.cli;

import dev.jvmticli.attach.TargetProcess;
import dev.jvmticli.client.AgentClient;
import dev.jvmticli.failure.ExitCode;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

@Command(name = "detach", mixinStandardHelpOptions = true, description = "Stop the resident agent: its server, events and capabilities; a later command attaches again.")
final class DetachCommand implements Callable<Integer> {
    private final CliContext context;

    @Mixin
    TargetOption target;

    DetachCommand(CliContext context) {
        this.context = context;
    }

    @Override
    public Integer call() {
        TargetProcess process = target.resolve();
        var resident = AgentClient.connect(process, context.timeout());
        if (resident.isEmpty()) {
            context.out().println("no agent is resident in " + process.pid());
            return ExitCode.OK.code();
        }
        try (AgentClient client = resident.get()) {
            client.detach();
        }
        context.out().println("detached from " + process.pid());
        return ExitCode.OK.code();
    }
}
