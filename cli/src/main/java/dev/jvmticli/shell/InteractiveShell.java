package dev.jvmticli.shell;

import dev.jvmticli.attach.TargetProcess;
import dev.jvmticli.cli.CliContext;
import dev.jvmticli.failure.CliFailure;
import dev.jvmticli.files.Owners;
import dev.jvmticli.render.Printable;
import java.io.IOError;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Optional;
import org.jline.reader.EndOfFileException;
import org.jline.reader.LineReader;
import org.jline.reader.LineReaderBuilder;
import org.jline.reader.UserInterruptException;
import org.jline.terminal.Terminal;
import org.jline.terminal.TerminalBuilder;
import org.jline.utils.AttributedStringBuilder;
import org.jline.utils.AttributedStyle;
import org.jline.utils.Curses;
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
    /** The terminal's string for the capability, "" where it has none. */
    private static String code(Terminal terminal, InfoCmp.Capability capability) {
        String template = terminal.getStringCapability(capability);
        if (template == null) {
            return "";
        }
        StringWriter text = new StringWriter();
        Curses.tputs(text, template);
        return text.toString();
    }

    /** The terminal's width, read on the main thread before each command (the exec terminal asks stty each time). */
    private volatile int width;

    private InteractiveShell(Shell shell, Terminal terminal) {
        this.shell = shell;
        this.terminal = terminal;
    }

    static int run(CliContext context, TargetProcess target) {
        Terminal terminal;
        try {
            terminal = TerminalBuilder.builder().system(true).name("jvmti-cli").encoding(StandardCharsets.UTF_8)
                    .signalHandler(Terminal.SignalHandler.SIG_IGN) // never the OS default: a Ctrl-C must not kill the shell
                    .build();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        try {
            boolean colour = Terminals.colour(1);
            PrintWriter out = terminal.writer();
            PrintWriter err = errors(terminal, colour && Terminals.colour(2));
            InteractiveShell[] self = new InteractiveShell[1];
            Shell.Screen screen = new Shell.Screen(code(terminal, InfoCmp.Capability.clear_screen), code(terminal, InfoCmp.Capability.cursor_home),
                    code(terminal, InfoCmp.Capability.clr_eol), code(terminal, InfoCmp.Capability.clr_eos));
            Shell shell = new Shell(context, target, new Shell.Io(out, err, true, () -> self[0].width, screen));
            try {
                shell.connection().client(); // attach now: a target that cannot be reached fails at once
            } catch (CliFailure failure) {
                err.println("jvmti-cli: " + Printable.text(failure.getMessage()));
                err.flush();
                return failure.exitCode().code();
            }
            try {
                self[0] = new InteractiveShell(shell, terminal);
                return self[0].loop(colour);
            } finally {
                shell.close();
            }
        } finally {
            close(terminal);
        }
    }

    /** Restores the terminal's modes; retried, since stty may be killed by a late Ctrl-C. */
    private static void close(Terminal terminal) {
        for (int attempt = 0; attempt < 3; attempt++) {
            try {
                Thread.interrupted();
                terminal.close();
                return;
            } catch (IOException | IOError e) {
                // try again
            }
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
        LineReaderBuilder builder = LineReaderBuilder.builder();
        historyFile().ifPresent(file -> builder.variable(LineReader.HISTORY_FILE, file));
        LineReader reader = builder
                .terminal(terminal)
                .appName("jvmti-cli")
                .completer(new ShellCompleter(shell.commands(), shell::completableThreads))
                .variable(LineReader.HISTORY_SIZE, 1000)
                .variable(LineReader.HISTORY_FILE_SIZE, 1000)
                .option(LineReader.Option.DISABLE_EVENT_EXPANSION, true) // '!' is literal (grep patterns)
                .option(LineReader.Option.HISTORY_IGNORE_DUPS, true)
                .build();
        String prompt = prompt(colour);
        int failures = 0;
        while (!shell.exitRequested()) {
            String line;
            try {
                line = reader.readLine(prompt);
                failures = 0;
            } catch (UserInterruptException e) {
                continue; // Ctrl-C at the prompt drops the line, as in bash
            } catch (EndOfFileException e) {
                break;
            } catch (IOError e) {
                // the exec terminal runs stty for each mode change, and a Ctrl-C right after Enter kills it:
                // the line is dropped, as a command cancelled before it started, and the prompt comes again
                if (++failures > 10) {
                    throw e;
                }
                Thread.interrupted();
                terminal.writer().println();
                terminal.writer().println("(cancelled)");
                terminal.writer().flush();
                continue;
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
        try {
            width = terminal.getWidth();
        } catch (IOError e) {
            // stty was interrupted or killed by a Ctrl-C: the width stays as it was; an interrupt is dealt with below
        }
        if (Thread.interrupted()) {
            // Ctrl-C right after Enter reached the line reader's own handler, still in place: the command is cancelled before it starts
            terminal.writer().println();
            terminal.writer().println("(cancelled)");
            terminal.writer().flush();
            return;
        }
        // Installed again for each command: readLine sets a handler of its own while it restores the
        // terminal's modes (with stty) and puts the previous one back after; when a Ctrl-C kills
        // that stty, the IOError skips that step and every later Ctrl-C would go to readLine's handler.
        terminal.handle(Terminal.Signal.INT, signal -> cancel());
        Thread worker = new Thread(() -> shell.runLine(line), "jvmti-cli command");
        worker.setDaemon(true);
        running = worker;
        worker.start();
        long cancelledAt = 0;
        while (worker.isAlive()) {
            try {
                worker.join(50);
            } catch (InterruptedException e) {
                cancel(); // the line reader's own Ctrl-C handler, still in place right after Enter, interrupted us
            }
            if (cancelled && cancelledAt == 0) {
                cancelledAt = System.nanoTime();
            }
            if (cancelledAt != 0 && System.nanoTime() - cancelledAt > ABANDON_AFTER_MILLIS * 1_000_000) {
                break; // it ignores the interrupt: leave it, its output goes nowhere
            }
        }
        running = null;
        terminal.writer().flush();
        if (cancelled) {
            terminal.writer().println();
            terminal.writer().println("(cancelled)");
            terminal.writer().flush();
        }
    }

    /** Ctrl-C while a command runs: end its sampling window if it is in one, else cancel it; keep the shell. */
    private synchronized void cancel() {
        Thread worker = running;
        if (worker != null && !cancelled && !shell.endWindow()) {
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

    /**
     * ~/.jvmti-cli_history, home being $HOME as shells have it, else the account's home; none (the
     * history kept in memory) when that home is not the running user's, as when root runs with
     * another user's HOME: nothing of root's is made there.
     */
    static Optional<Path> historyFile() {
        String home = System.getenv("HOME");
        Path dir = Path.of(home == null || home.isEmpty() ? System.getProperty("user.home") : home);
        return Owners.isRunningUsers(dir) ? Optional.of(dir.resolve(".jvmti-cli_history")) : Optional.empty();
    }
}
