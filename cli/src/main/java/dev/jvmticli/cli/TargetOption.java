package dev.jvmticli.cli;

import dev.jvmticli.attach.JvmDiscovery;
import dev.jvmticli.attach.TargetProcess;
import dev.jvmticli.failure.CliFailure;
import dev.jvmticli.failure.ExitCode;
import picocli.CommandLine.Parameters;

/** The {@code <pid>} every target command takes: a process id, or a fragment of a JVM's main class or jar. */
public final class TargetOption {
    @Parameters(index = "0", paramLabel = "<pid>",
            description = "The target JVM: its process id, or a unique fragment of its main class or jar name (see 'jvmti-cli list').")
    String target;

    public TargetProcess resolve() {
        if (!target.isEmpty() && target.chars().allMatch(c -> c >= '0' && c <= '9')) {
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
        if (target.isBlank() || target.startsWith("-")) {
            throw new CliFailure(ExitCode.USAGE, "'" + target + "' is not a process id");
        }
        return TargetProcess.of(JvmDiscovery.byName(target).pid());
    }
}
