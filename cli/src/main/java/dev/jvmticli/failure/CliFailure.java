package dev.jvmticli.failure;

/** A failure the user gets as one line and an exit code. */
public class CliFailure extends RuntimeException {
    private final ExitCode exitCode;

    public CliFailure(ExitCode exitCode, String message) {
        super(message);
        this.exitCode = exitCode;
    }

    public CliFailure(ExitCode exitCode, String message, Throwable cause) {
        super(message, cause);
        this.exitCode = exitCode;
    }

    public ExitCode exitCode() {
        return exitCode;
    }
}
