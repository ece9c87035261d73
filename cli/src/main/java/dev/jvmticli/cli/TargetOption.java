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
        if (isDigits(target)) {
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

    /** Whether the option is this process id, as digits. */
    public boolean names(long pid) {
        return isDigits(target) && target.equals(Long.toString(pid));
    }

    /** A loop, not a stream: every command runs this, and each lambda's first use costs its cold start (see ThreadsCommand#BY_ID). */
    private static boolean isDigits(String text) {
        for (int i = 0; i < text.length(); i++) {
            if (text.charAt(i) < '0' || text.charAt(i) > '9') {
                return false;
            }
        }
        return !text.isEmpty();
    }
}
