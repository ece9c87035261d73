package dev.jvmticli.testing;

import dev.jvmticli.app.Main;
import java.io.PrintWriter;
import java.io.StringWriter;

/** Runs the CLI in this JVM, as the launcher would, and captures what it prints. */
public final class CliRun {
    private CliRun() {
    }

    /** What one run printed and returned. */
    public record Result(int exit, String out, String err) {
        @Override
        public String toString() {
            return "exit " + exit + "\n--- stdout\n" + out + "--- stderr\n" + err;
        }
    }

    public static Result run(String... args) {
        CommandLog.record("in-process", args);
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        PrintWriter outWriter = new PrintWriter(out, true);
        PrintWriter errWriter = new PrintWriter(err, true);
        int exit = Main.run(Main.context(outWriter, errWriter), args);
        outWriter.flush();
        errWriter.flush();
        return new Result(exit, out.toString(), err.toString());
    }
}
