package dev.jvmticli.failure;

/**
 * Standard output cannot take more: its reader went away (a pipe into {@code head} that exited) or
 * the write failed. It ends the command, and the shell, with {@link ExitCode#OUTPUT_CLOSED}; a
 * reader that went away is not reported on stderr, as {@code yes | head} reports nothing.
 */
public final class OutputClosed extends CliFailure {
    private final boolean readerGone;

    public OutputClosed(boolean readerGone, String message, Throwable cause) {
        super(ExitCode.OUTPUT_CLOSED, message, cause);
        this.readerGone = readerGone;
    }

    /** Whether the reader went away, as opposed to a write that failed otherwise (a full disk). */
    public boolean readerGone() {
        return readerGone;
    }
}
