package dev.jvmticli.cli;

import java.io.BufferedWriter;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;

/** The launcher's entry point. */
public final class Main {
    private static final int OUTPUT_BUFFER = 64 * 1024;

    private Main() {
    }

    public static void main(String[] args) {
        // buffered, not flushed per line: a dump of thousands of threads is hundreds of thousands
        // of lines; commands flush when they are done (and before any error message)
        PrintWriter out = new PrintWriter(new BufferedWriter(new OutputStreamWriter(
                new FileOutputStream(FileDescriptor.out), StandardCharsets.UTF_8), OUTPUT_BUFFER), false);
        PrintWriter err = new PrintWriter(new OutputStreamWriter(System.err, StandardCharsets.UTF_8), true);
        int exit = JvmtiCli.commandLineFor(new CliContext(out, err), args).execute(args);
        out.flush();
        err.flush();
        System.exit(exit);
    }
}
