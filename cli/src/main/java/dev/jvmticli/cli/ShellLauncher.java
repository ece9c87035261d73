package dev.jvmticli.cli;

import dev.jvmticli.attach.TargetProcess;

/**
 * Opens the shell on a target, for {@code shell <pid>} and {@code jvmti-cli <pid>}. The shell runs
 * these commands, so it sits above them: the application hands it down in the {@link CliContext}.
 */
@FunctionalInterface
public interface ShellLauncher {
    /** Runs the commands given (null: those read from standard input); returns the run's exit code. */
    int launch(CliContext context, TargetProcess target, String commands);
}
