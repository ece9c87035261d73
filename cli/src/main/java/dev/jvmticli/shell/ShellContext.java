package dev.jvmticli.shell;

import dev.jvmticli.attach.TargetProcess;
import dev.jvmticli.cli.CliContext;
import dev.jvmticli.cli.TargetOption;
import dev.jvmticli.client.AgentClient;
import java.io.PrintWriter;

/**
 * The context of one command run inside the shell: its own output (a file, a grep, the terminal),
 * the timeout and verbosity the shell was launched with, and, for the shell's target, the shell's open connection lent so that the command's
 * try-with-resources leaves it open.
 */
final class ShellContext extends CliContext {
    private final SharedConnection connection;
    private final long pid;

    ShellContext(PrintWriter out, PrintWriter err, CliContext launch, SharedConnection connection, long pid) {
        super(out, err, launch);
        this.connection = connection;
        this.pid = pid;
    }

    @Override
    public AgentClient connect(TargetProcess target) {
        return target.pid() == pid ? connection.client().borrowed() : super.connect(target);
    }

    /**
     * The shell's target is not checked again before each command (2,000 threads are 4,000 lines of
     * /proc/PID/maps): the connection's hello proves the JVM is there, and one that must be opened
     * again checks the target first.
     */
    @Override
    public AgentClient connect(TargetOption target) {
        return target.names(pid) ? connection.client().borrowed() : super.connect(target);
    }
}
