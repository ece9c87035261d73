package dev.jvmticli.cli;

import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;

/** The launcher's entry point. */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) {
        PrintWriter out = new PrintWriter(new java.io.OutputStreamWriter(System.out, StandardCharsets.UTF_8), true);
        PrintWriter err = new PrintWriter(new java.io.OutputStreamWriter(System.err, StandardCharsets.UTF_8), true);
        int exit = JvmtiCli.commandLine(new CliContext(out, err)).execute(args);
        out.flush();
        err.flush();
        System.exit(exit);
    }
}
