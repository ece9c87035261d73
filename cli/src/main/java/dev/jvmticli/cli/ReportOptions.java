package dev.jvmticli.cli;

import dev.jvmticli.failure.CliFailure;
import dev.jvmticli.failure.ExitCode;
import dev.jvmticli.files.OutputFile;
import dev.jvmticli.files.UnsafePathException;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import picocli.CommandLine.Option;

/** How long a profiling command runs and how it reports: a table, --json, --collapsed, --html. */
public final class ReportOptions {
    @Option(names = "--duration", paramLabel = "DURATION", defaultValue = "10s", converter = DurationConverter.class,
            description = "How long to profile (default: ${DEFAULT-VALUE}); Ctrl-C stops early and still reports.")
    Duration duration;

    @Option(names = "--top", paramLabel = "N", defaultValue = "10", description = "Rows per table (default: ${DEFAULT-VALUE}).")
    int top;

    @Option(names = "--json", description = "Print one JSON document instead of tables.")
    boolean json;

    @Option(names = "--collapsed", description = "Print collapsed stacks (root;...;leaf weight), as flame graph tools read them.")
    boolean collapsed;

    @Option(names = "--html", paramLabel = "FILE", description = "Also write a self-contained interactive flame graph page to FILE (never through a link, never over another user's file).")
    Path html;

    void validate() {
        if (top <= 0) {
            throw new CliFailure(ExitCode.USAGE, "--top takes a positive number");
        }
        if (json && collapsed) {
            throw new CliFailure(ExitCode.USAGE, "--json and --collapsed are alternatives: choose one");
        }
        if (html != null) {
            checkHtml(html);
        }
    }

    /** Writes the page; says so on stdout after a table, on stderr when stdout carries data. */
    void writeHtml(CliContext context, String page) {
        writeHtml(context, html, json || collapsed, page);
    }

    /** Refuses an --html path before the command runs: one the CLI would not write through, or cannot write. */
    static void checkHtml(Path html) {
        try {
            OutputFile.checkAhead(html);
        } catch (UnsafePathException e) {
            throw new CliFailure(ExitCode.USAGE, "--html " + e.getMessage());
        } catch (IOException e) {
            throw new CliFailure(ExitCode.FAILURE, "cannot write " + html + ": " + OutputFile.reason(e), e);
        }
    }

    /** Writes the page to html; says so on stderr when stdout carries data, else on stdout. */
    static void writeHtml(CliContext context, Path html, boolean stdoutCarriesData, String page) {
        try (OutputStream file = OutputFile.open(html, false)) {
            file.write(page.getBytes(StandardCharsets.UTF_8));
        } catch (UnsafePathException e) {
            throw new CliFailure(ExitCode.USAGE, "--html " + e.getMessage());
        } catch (IOException e) {
            throw new CliFailure(ExitCode.FAILURE, "cannot write " + html + ": " + OutputFile.reason(e), e);
        }
        (stdoutCarriesData ? context.err() : context.out()).println("wrote " + html);
    }
}
