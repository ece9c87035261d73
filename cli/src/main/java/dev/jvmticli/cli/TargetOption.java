package dev.jvmticli.cli;

import dev.jvmticli.attach.TargetProcess;
import dev.jvmticli.failure.CliFailure;
import dev.jvmticli.failure.ExitCode;
import picocli.CommandLine.Parameters;

/** The {@code <pid>} every target command takes. */
public final class TargetOption {
    @Parameters(index = "0", paramLabel = "<pid>", description = "The target JVM's process id.")
    String target;

    public TargetProcess resolve() {
        long pid;
        try {
            pid = Long.parseLong(target);
        } catch (NumberFormatException e) {
            throw new CliFailure(ExitCode.USAGE, "'" + target + "' is not a process id");
        }
        if (pid <= 0) {
            throw new CliFailure(ExitCode.USAGE, "'" + target + "' is not a process id");
        }
        return TargetProcess.of(pid);
    }
}
