package dev.jvmticli.app;

import dev.jvmticli.cli.BareCommand;
import dev.jvmticli.cli.CliContext;
import dev.jvmticli.cli.JvmtiCli;
import dev.jvmticli.cli.StandardOutput;
import dev.jvmticli.client.ConnectionWarmUp;
import dev.jvmticli.failure.OutputClosed;
import dev.jvmticli.render.TextOutput;
import dev.jvmticli.shell.Shell;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;

/**
 * The launcher's entry point, above the commands and the shell: the shell runs the commands, and
 * the commands open the shell ({@code shell <pid>}, {@code jvmti-cli <pid>}) through the
 * {@link dev.jvmticli.cli.ShellLauncher} put in their context here.
 */
public final class Main {
    /** What reaches fd 1 in one write(2): a dump of thousands of threads is megabytes. */
    private static final int OUTPUT_BUFFER = 1024 * 1024;

    private Main() {
    }

    public static void main(String[] args) {
        ConnectionWarmUp.start(); // nearly every command connects to a JVM
        // buffered, not flushed per line: a dump of thousands of threads is hundreds of thousands
        // of lines; commands flush when they are done (and before any error message)
        PrintWriter out = TextOutput.of(new StandardOutput(), OUTPUT_BUFFER);
        PrintWriter err = new PrintWriter(new OutputStreamWriter(System.err, StandardCharsets.UTF_8), true);
        int exit = run(context(out, err), args);
        try {
            out.flush();
        } catch (OutputClosed closed) {
            exit = closed.exitCode().code();
        }
        err.flush();
        System.exit(exit);
    }

    /** The context of one run writing to out and err, in which the commands can open the shell. */
    public static CliContext context(PrintWriter out, PrintWriter err) {
        return new CliContext(out, err, Shell::launch);
    }

    /**
     * One run of the command line: a bare {@code <command> <pid>} directly (see {@link BareCommand}),
     * any other through picocli. JvmtiCli, and with it picocli, is loaded only on that second path.
     */
    public static int run(CliContext context, String[] args) {
        Integer bare = BareCommand.runIfBare(context, args);
        return bare != null ? bare : JvmtiCli.commandLineFor(context, args).execute(args);
    }
}
