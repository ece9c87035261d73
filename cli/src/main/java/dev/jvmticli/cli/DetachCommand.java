package dev.jvmticli.cli;

import dev.jvmticli.attach.TargetProcess;
import dev.jvmticli.client.AgentClient;
import dev.jvmticli.failure.ExitCode;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

@Command(name = "detach", mixinStandardHelpOptions = true, description = "Stop the resident agent: its server, events and capabilities; a later command attaches again.")
final class DetachCommand implements Callable<Integer> {
    /** How long detach waits for the agent to close its socket after it answered. */
    private static final long SOCKET_CLOSE_MILLIS = 5000;
    private static final long POLL_MILLIS = 10;

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
        awaitSocketClosed(process.socketPath());
        context.out().println("detached from " + process.pid());
        return ExitCode.OK.code();
    }

    /**
     * The agent answers a detach before it stops listening: a command right after would reach the
     * stopping agent and lose its connection. The agent removes its socket file just before it
     * closes the socket, so once the file is gone the next command attaches afresh.
     */
    private static void awaitSocketClosed(Path socket) {
        long deadline = System.nanoTime() + SOCKET_CLOSE_MILLIS * 1_000_000;
        while (Files.exists(socket, LinkOption.NOFOLLOW_LINKS) && System.nanoTime() < deadline) {
            try {
                Thread.sleep(POLL_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
