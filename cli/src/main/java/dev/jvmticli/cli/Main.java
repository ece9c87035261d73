package dev.jvmticli.cli;

import dev.jvmticli.client.ConnectionWarmUp;
import dev.jvmticli.failure.OutputClosed;
import dev.jvmticli.render.TextOutput;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;

/** The launcher's entry point. */
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
        int exit = run(new CliContext(out, err), args);
        try {
            out.flush();
        } catch (OutputClosed closed) {
            exit = closed.exitCode().code();
        }
        err.flush();
        System.exit(exit);
    }

    /**
     * One run of the command line: a bare {@code <command> <pid>} directly (see {@link BareCommand}),
     * any other through picocli. JvmtiCli, and with it picocli, is loaded only on that second path.
     */
    public static int run(CliContext context, String[] args) {
        Integer bare = runBare(context, args);
        return bare != null ? bare : JvmtiCli.commandLineFor(context, args).execute(args);
    }

    /** Runs a bare {@code <command> <pid>} (see {@link BareCommand}); null, having run nothing, for any other. */
    public static Integer runBare(CliContext context, String[] args) {
        Callable<Integer> bare = BareCommand.of(context, args);
        return bare == null ? null : BareCommand.run(context, args[0], bare);
    }
}
