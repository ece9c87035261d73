package dev.jvmticli.cli;

import dev.jvmticli.failure.CliFailure;
import dev.jvmticli.failure.ExitCode;
import dev.jvmticli.failure.OutputClosed;
import dev.jvmticli.render.Printable;

/** How a command's failure is told: one line on stderr (a stack trace with --verbose) and its exit code. */
final class FailureReport {
    private FailureReport() {
    }

    /** Prints the failure of the command named (as in "jvmti-cli threads") and returns its exit code. */
    static int print(CliContext context, Exception exception, String commandName) {
        if (exception instanceof OutputClosed closed) {
            if (!closed.readerGone()) {
                context.err().println("jvmti-cli: " + closed.getMessage());
            }
            return closed.exitCode().code();
        }
        context.out().flush(); // what was printed before the failure comes first
        if (exception instanceof CliFailure failure) {
            context.err().println("jvmti-cli: " + Printable.text(failure.getMessage()));
            if (failure.exitCode() == ExitCode.USAGE) {
                context.err().println("Try '" + commandName + " --help'.");
            }
            if (context.verbose()) {
                exception.printStackTrace(context.err());
            }
            return failure.exitCode().code();
        }
        context.err().println("jvmti-cli: internal error: " + exception);
        if (context.verbose()) {
            exception.printStackTrace(context.err());
        }
        return ExitCode.FAILURE.code();
    }
}
