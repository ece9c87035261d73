package dev.jvmticli.cli;

import dev.jvmticli.failure.CliFailure;
import dev.jvmticli.failure.ExitCode;
import dev.jvmticli.payload.AgentLibrary;
import java.io.IOException;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

@Command(name = "agent-path", mixinStandardHelpOptions = true,
        description = "Print the path of the agent library, for starting a JVM with -agentpath:<path> (start-up mode).")
final class AgentPathCommand implements Callable<Integer> {
    private final CliContext context;

    AgentPathCommand(CliContext context) {
        this.context = context;
    }

    @Override
    public Integer call() {
        try {
            context.out().println(new AgentLibrary().extract());
        } catch (IOException e) {
            throw new CliFailure(ExitCode.FAILURE, "cannot extract the agent library: " + e.getMessage(), e);
        }
        return ExitCode.OK.code();
    }
}
