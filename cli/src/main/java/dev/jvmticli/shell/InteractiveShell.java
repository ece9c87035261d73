package dev.jvmticli.shell;

import dev.jvmticli.attach.TargetProcess;
import dev.jvmticli.cli.CliContext;
import dev.jvmticli.failure.CliFailure;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.jline.reader.EndOfFileException;
import org.jline.reader.LineReader;
import org.jline.reader.LineReaderBuilder;
import org.jline.reader.UserInterruptException;
import org.jline.terminal.Terminal;
import org.jline.terminal.TerminalBuilder;
import org.jline.utils.AttributedStringBuilder;
import org.jline.utils.AttributedStyle;
import org.jline.utils.InfoCmp;

/**
 * The shell on a terminal, with JLine: prompt, line editing, history in
 * {@code ~/.jvmti-cli_history}, Ctrl-R, tab completion. Each command runs on its own thread so
 * that Ctrl-C can cancel it and keep the shell. Only {@code shell} loads this class (and JLine).
 */
final class InteractiveShell {
    /** How long a cancelled command gets to stop before it is abandoned. */
    private static final long ABANDON_AFTER_MILLIS = 2000;
    private static final String RED = "\u001b[31m";
    private static final String RESET = "\u001b[0m";

    private final Shell shell;
    private final Terminal terminal;
    private volatile Thread running;
    private volatile boolean cancelled;

    private InteractiveShell(Shell shell, Terminal terminal) {
        this.shell = shell;
        this.terminal = terminal;
    }

    static int run(CliContext context, TargetProcess target) {
        Terminal terminal;
        try {
            terminal = TerminalBuilder.builder().system(true).name("jvmti-cli").encoding(StandardCharsets.UTF_8).build();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        try (terminal) {
            boolean colour = Terminals.colour(1);
            PrintWriter out = terminal.writer();
            PrintWriter err = errors(terminal, colour && Terminals.colour(2));
            Shell shell = new Shell(context, target, new Shell.Io(out, err, true, terminal::getWidth,
                    () -> terminal.puts(InfoCmp.Capability.clear_screen)));
            try {
                shell.connection().client(); // attach now: a target that cannot be reached fails at once
            } catch (CliFailure failure) {
                err.println("jvmti-cli: " + failure.getMessage());
                err.flush();
                return failure.exitCode().code();
            }
            try {
                return new InteractiveShell(shell, terminal).loop(colour);
            } finally {
                shell.close();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static PrintWriter errors(Terminal terminal, boolean colour) {
        if (!Terminals.isTerminal(2)) {
            return new PrintWriter(new java.io.OutputStreamWriter(System.err, StandardCharsets.UTF_8), true);
        }
        PrintWriter screen = terminal.writer();
        return new PrintWriter(new LineWriter(line -> screen.print(colour ? RED + line + RESET + "\n" : line + "\n"), screen::flush), true);
    }

    private int loop(boolean colour) {
        LineReader reader = LineReaderBuilder.builder()
                .terminal(terminal)
                .appName("jvmti-cli")
                .completer(new ShellCompleter(shell.commands(), () -> shell.connection().client().threads().threads()))
                .variable(LineReader.HISTORY_FILE, historyFile())
                .variable(LineReader.HISTORY_SIZE, 1000)
                .variable(LineReader.HISTORY_FILE_SIZE, 1000)
                .option(LineReader.Option.DISABLE_EVENT_EXPANSION, true) // '!' is literal (grep patterns)
                .option(LineReader.Option.HISTORY_IGNORE_DUPS, true)
                .build();
        terminal.handle(Terminal.Signal.INT, signal -> cancel());
        String prompt = prompt(colour);
        while (!shell.exitRequested()) {
            String line;
            try {
                line = reader.readLine(prompt);
            } catch (UserInterruptException e) {
                continue; // Ctrl-C at the prompt drops the line, as in bash
            } catch (EndOfFileException e) {
                break;
            }
            if (!line.isBlank()) {
                execute(line);
            }
        }
        return shell.status();
    }

    /** Runs the line on a worker thread, waits for it, or for Ctrl-C and then at most a little longer. */
    private void execute(String line) {
        cancelled = false;
        Thread worker = new Thread(() -> shell.runLine(line), "jvmti-cli command");
        worker.setDaemon(true);
        running = worker;
        worker.start();
        try {
            long cancelledAt = 0;
            while (worker.isAlive()) {
                worker.join(50);
                if (cancelled && cancelledAt == 0) {
                    cancelledAt = System.nanoTime();
                }
                if (cancelledAt != 0 && System.nanoTime() - cancelledAt > ABANDON_AFTER_MILLIS * 1_000_000) {
                    break; // it ignores the interrupt: leave it, its output goes nowhere
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            running = null;
        }
        terminal.writer().flush();
        if (cancelled) {
            terminal.writer().println();
            terminal.writer().println("(cancelled)");
            terminal.writer().flush();
        }
    }

    /** Ctrl-C while a command runs: cancel it, keep the shell. */
    private void cancel() {
        Thread worker = running;
        if (worker != null) {
            cancelled = true;
            shell.cancel(worker);
        }
    }

    private String prompt(boolean colour) {
        if (!colour) {
            return shell.label() + "> ";
        }
        return new AttributedStringBuilder()
                .style(AttributedStyle.BOLD.foreground(AttributedStyle.CYAN)).append(shell.label())
                .style(AttributedStyle.DEFAULT).append("> ")
                .toAnsi(terminal);
    }

    /** ~/.jvmti-cli_history, home being $HOME as shells have it, else the account's home. */
    static Path historyFile() {
        String home = System.getenv("HOME");
        return Path.of(home == null || home.isEmpty() ? System.getProperty("user.home") : home, ".jvmti-cli_history");
    }
}
