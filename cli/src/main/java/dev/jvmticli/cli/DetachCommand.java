package dev.jvmticli.cli;

import dev.jvmticli.attach.TargetProcess;
import dev.jvmticli.client.AgentClient;
import dev.jvmticli.failure.ExitCode;
import java.io.IOException;
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
        AgentClient client;
        try {
            client = AgentClient.connect(process.socketPath(), context.timeout(), "JVM " + process.pid());
        } catch (IOException e) {
            context.out().println("no agent is resident in " + process.pid());
            return ExitCode.OK.code();
        }
        try (client) {
            client.detach();
        }
        context.out().println("detached from " + process.pid());
        return ExitCode.OK.code();
    }
}
