package dev.jvmticli.shell;

import dev.jvmticli.attach.JvmDiscovery;
import dev.jvmticli.attach.LocalJvm;
import dev.jvmticli.attach.TargetProcess;
import dev.jvmticli.cli.BareCommand;
import dev.jvmticli.cli.CliContext;
import dev.jvmticli.cli.JvmtiCli;
import dev.jvmticli.cli.StandardOutput;
import dev.jvmticli.cli.TargetOption;
import dev.jvmticli.client.AgentClient;
import dev.jvmticli.client.ThreadEntry;
import dev.jvmticli.client.VirtualDump;
import dev.jvmticli.client.VthreadsRequest;
import dev.jvmticli.failure.CliFailure;
import dev.jvmticli.failure.ExitCode;
import dev.jvmticli.failure.OutputClosed;
import dev.jvmticli.files.OutputFile;
import dev.jvmticli.files.UnsafePathException;
import dev.jvmticli.render.Printable;
import dev.jvmticli.render.TextOutput;
import dev.jvmticli.shell.ShellLine.Filter;
import dev.jvmticli.shell.ShellLine.Pipeline;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.Reader;
import java.io.StringReader;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.LocalTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * The shell's engine, free of any terminal library: runs lines of commands against one target
 * over one open connection. Every subcommand registered in {@link JvmtiCli} runs here with its
 * one-shot options and output; the target's pid is put in for the commands that take one.
 * Lines come from a script ({@link #runScript}), from {@code -c}, or from {@code InteractiveShell}.
 */
public final class Shell {
    /** Subcommands that make no sense inside the shell, or that the shell replaces. */
    private static final Set<String> NOT_IN_SHELL = Set.of("shell", "help");
    /** What a command's output reaches its file in, at most: a dump is megabytes. */
    private static final int FILE_BUFFER = 1024 * 1024;
    /**
     * What a command's output reaches the shell's output in, at most: that output has a large
     * buffer of its own (see Main), and one of G1's humongous size would be allocated and zeroed
     * for every command.
     */
    private static final int SHELL_OUTPUT_BUFFER = 64 * 1024;

    /** Where the shell writes, and what it knows of the screen. */
    record Io(PrintWriter out, PrintWriter err, boolean terminal, IntSupplier width, Screen screen) {
    }

    /**
     * The terminal's codes that watch redraws with, written in the text: clear the screen, put the
     * cursor home, erase to the end of the line, erase below the cursor; each "" where the terminal
     * has none.
     */
    record Screen(String clear, String home, String eraseLineEnd, String eraseBelow) {
        static final Screen NONE = new Screen("", "", "", "");

        /** Whether a frame can be written over the last one: the cursor home and the old text erased. */
        boolean redrawsInPlace() {
            return !home.isEmpty() && !eraseLineEnd.isEmpty() && !eraseBelow.isEmpty();
        }
    }

    /**
     * The most virtual threads whose names completion lists: a server may run 100,000, and their
     * names on every Tab would be megabytes to make and send.
     */
    static final int VIRTUAL_NAMES_MAX = 1000;

    /** How often the shell looks whether its connection needs a keep-alive (AgentClient#keepAlive). */
    private static final long KEEP_ALIVE_CHECK_MILLIS = 500;

    private final CliContext launch;
    private final TargetProcess target;
    private final LocalJvm jvm;
    private final Io io;
    private volatile SharedConnection connection;
    private final ScheduledExecutorService keepAlive = Executors.newSingleThreadScheduledExecutor(task -> {
        Thread thread = new Thread(task, "jvmti-cli keep-alive");
        thread.setDaemon(true);
        return thread;
    });
    private volatile Running running;
    private volatile ShellContext commandContext;
    private int status;
    private boolean exitRequested;

    /** The gates of the running command's output and errors. */
    private record Running(Runnable shutOut, GatedWriter err) {
        void shut() {
            shutOut.run();
            err.shut();
        }
    }

    Shell(CliContext launch, TargetProcess target, Io io) {
        this.launch = launch;
        this.target = target;
        this.io = io;
        this.jvm = JvmDiscovery.describe(target.pid()).orElse(null);
        this.connection = new SharedConnection(() -> launch.connect(TargetProcess.of(target.pid())));
        keepAlive.scheduleWithFixedDelay(() -> connection.keepAlive(), KEEP_ALIVE_CHECK_MILLIS, KEEP_ALIVE_CHECK_MILLIS, TimeUnit.MILLISECONDS);
    }

    /**
     * {@code jvmti-cli shell <pid>}: runs commands (lines, {@code ;}-separated) when given, else
     * reads them from standard input, interactively when it and standard output are a terminal.
     * Returns 0 when every command succeeded, else the exit code of the first that failed.
     */
    public static int launch(CliContext context, TargetProcess target, String commands) {
        boolean terminal = commands == null && Terminals.isTerminal(0) && Terminals.isTerminal(1);
        if (terminal) {
            return InteractiveShell.run(context, target);
        }
        Shell shell = new Shell(context, target, new Io(context.out(), context.err(), false, () -> 0, Screen.NONE));
        try {
            shell.connection.client(); // attach now: a target that cannot be reached fails at once
            Reader lines = commands != null ? new StringReader(commands) : new InputStreamReader(System.in, StandardCharsets.UTF_8);
            return shell.runScript(new BufferedReader(lines));
        } catch (CliFailure failure) {
            context.err().println("jvmti-cli: " + Printable.text(failure.getMessage()));
            return failure.exitCode().code();
        } finally {
            shell.close();
        }
    }

    /** Runs every line until the end or {@code exit}. */
    int runScript(BufferedReader lines) {
        try {
            String line;
            while (!exitRequested && (line = lines.readLine()) != null) {
                runLine(line);
            }
        } catch (IOException e) {
            io.err().println("jvmti-cli: cannot read commands: " + e.getMessage());
            record(ExitCode.FAILURE.code());
        }
        return status;
    }

    /** The target as the prompt shows it: pid and main class. */
    String label() {
        return target.pid() + (jvm == null ? "" : " " + Printable.text(jvm.shortName()));
    }

    /**
     * The target's threads for completion: the platform ones, and the virtual ones (names and
     * states, no stacks) where the JVM has them and they are at most {@link #VIRTUAL_NAMES_MAX}; of
     * more, only their number, from a count.
     */
    ShellCompleter.LiveThreads completableThreads() {
        AgentClient client = connection.client();
        List<ThreadEntry> threads = new ArrayList<>(client.threads().threads());
        long virtual = client.vthreadsIfAny(VthreadsRequest.counts()).map(dump -> dump.summary().count()).orElse(0L);
        if (virtual > VIRTUAL_NAMES_MAX) {
            return new ShellCompleter.LiveThreads(threads, virtual);
        }
        if (virtual > 0) {
            Set<Long> platform = threads.stream().map(ThreadEntry::id).collect(java.util.stream.Collectors.toSet());
            List<ThreadEntry> listed = client.vthreadsIfAny(VthreadsRequest.of(null)).map(VirtualDump::threads).orElse(List.of())
                    .stream().map(VirtualDump.VirtualStack::thread).filter(thread -> !platform.contains(thread.id())).toList();
            // made since the count: still no more than the most
            threads.addAll(listed.subList(0, Math.min(listed.size(), VIRTUAL_NAMES_MAX)));
            return new ShellCompleter.LiveThreads(threads, Math.max(0, listed.size() - VIRTUAL_NAMES_MAX));
        }
        return new ShellCompleter.LiveThreads(threads, 0);
    }

    SharedConnection connection() {
        return connection;
    }

    int status() {
        return status;
    }

    boolean exitRequested() {
        return exitRequested;
    }

    /** Runs one line; returns the exit code of its first failing command, or 0. */
    int runLine(String line) {
        List<Pipeline> pipelines;
        try {
            pipelines = ShellLine.parse(line);
        } catch (CliFailure failure) {
            io.err().println("jvmti-cli: " + failure.getMessage());
            return record(failure.exitCode().code());
        }
        int first = 0;
        for (Pipeline pipeline : pipelines) {
            int code = runPipeline(pipeline);
            if (Thread.currentThread().isInterrupted()) {
                return first; // cancelled: neither this command nor the rest of the line count
            }
            record(code);
            first = first == 0 ? code : first;
            if (exitRequested) {
                break;
            }
        }
        return first;
    }

    private int record(int code) {
        if (status == 0) {
            status = code;
        }
        return code;
    }

    /**
     * Ctrl-C while a profiling command waits out its window: ends the window, and the command
     * stops its session and reports as it would have at the end. False when no window is open.
     */
    boolean endWindow() {
        ShellContext context = commandContext;
        return context != null && context.endWindow();
    }

    /**
     * Stops the command running on worker, from any thread: its further output is dropped, the
     * thread interrupted, and the connection it may be using closed (an answer still on its way
     * would come out of order); the next command opens a new one. Returns at once.
     */
    void cancel(Thread worker) {
        Running now = running;
        if (now != null) {
            now.shut();
        }
        SharedConnection old = connection;
        connection = new SharedConnection(() -> launch.connect(TargetProcess.of(target.pid())));
        worker.interrupt();
        // closing waits for the worker to leave a read it is blocked in: not on the caller's thread
        Thread closer = new Thread(old::close, "jvmti-cli cancel");
        closer.setDaemon(true);
        closer.start();
    }

    /** Closes the connection for good. */
    void close() {
        keepAlive.shutdownNow();
        connection.close();
    }

    private int runPipeline(Pipeline pipeline) {
        PrintWriter sink;
        Runnable shutOut;
        try {
            if (pipeline.file() != null || io.out() instanceof TextOutput) {
                // bytes: what a renderer has encoded goes straight through (see TextOutput)
                GatedOutputStream gated = new GatedOutputStream(pipeline.file() == null ? ((TextOutput) io.out()).bytes()
                        : OutputFile.open(Path.of(pipeline.file()), pipeline.append()));
                sink = TextOutput.of(gated, pipeline.file() == null ? SHELL_OUTPUT_BUFFER : FILE_BUFFER);
                shutOut = gated::shut;
            } else {
                GatedWriter gated = new GatedWriter(unclosable(io.out()));
                sink = new PrintWriter(gated, false);
                shutOut = gated::shut;
            }
        } catch (UnsafePathException e) {
            io.err().println("jvmti-cli: " + e.getMessage());
            return ExitCode.USAGE.code();
        } catch (IOException e) {
            io.err().println("jvmti-cli: cannot write " + pipeline.file() + ": " + OutputFile.reason(e));
            return ExitCode.FAILURE.code();
        }
        Running run = new Running(shutOut, new GatedWriter(unclosable(io.err())));
        running = run;
        PrintWriter err = new PrintWriter(run.err(), true);
        int code;
        try (sink) {
            code = pipeline.words().get(0).equals("watch") ? watch(pipeline.words(), pipeline.filters(), sink, err, io.terminal() && pipeline.file() == null)
                    : runFiltered(pipeline.words(), pipeline.filters(), sink, err);
        } catch (OutputClosed closed) {
            if (!closed.readerGone()) {
                err.println("jvmti-cli: " + closed.getMessage());
            }
            code = closed.exitCode().code();
        } finally {
            err.flush();
            running = null;
        }
        if (pipeline.file() != null && sink.checkError() && code == ExitCode.OK.code()) {
            err.println("jvmti-cli: cannot write " + pipeline.file());
            err.flush();
            code = ExitCode.FAILURE.code();
        }
        if (code == ExitCode.OUTPUT_CLOSED.code()) {
            exitRequested = true; // nothing more can be shown: the shell ends, as the command did
        }
        return code;
    }

    /**
     * Runs the command with its output through the filters, if any, into out. A head that has its
     * lines ends the command as a closed pipe would, and the command succeeded: the reader had what it wanted.
     */
    private int runFiltered(List<String> words, List<Filter> filters, PrintWriter out, PrintWriter err) {
        Writer filtered = out;
        List<ShellLine.Run> runs = new ArrayList<>();
        List<LineWriter> writers = new ArrayList<>();
        for (int i = filters.size() - 1; i >= 0; i--) {
            ShellLine.Run run = filters.get(i).run(emitTo(filtered));
            LineWriter writer = new LineWriter(run::accept, flushOf(filtered), run::end);
            runs.add(0, run);
            writers.add(0, writer);
            filtered = writer;
        }
        // not flushed per line, as a command outside the shell is not: a dump is hundreds of
        // thousands of lines, and commands flush when they are done
        PrintWriter commandOut = filters.isEmpty() ? out : new PrintWriter(filtered, false);
        int code;
        try {
            try {
                code = dispatch(words, commandOut, err);
            } finally {
                commandOut.flush();
            }
        } catch (OutputClosed closed) {
            if (runs.stream().noneMatch(ShellLine.Run::satisfied)) {
                throw closed;
            }
            code = ExitCode.OK.code(); // thrown past a command's own handler (by watch's, or a builtin)
        }
        writers.forEach(LineWriter::finish); // the first filter's last line, then the next one's
        return code == ExitCode.OUTPUT_CLOSED.code() && runs.stream().anyMatch(ShellLine.Run::satisfied) ? ExitCode.OK.code() : code;
    }

    private static java.util.function.Consumer<String> emitTo(Writer out) {
        return line -> {
            try {
                out.write(line + "\n");
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        };
    }

    private static Runnable flushOf(Writer out) {
        return () -> {
            try {
                out.flush();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        };
    }

    private int dispatch(List<String> words, PrintWriter out, PrintWriter err) {
        String name = words.get(0);
        return switch (name) {
            case "exit", "quit" -> {
                exitRequested = true;
                yield ExitCode.OK.code();
            }
            case "help" -> help(words, out, err);
            case "watch" -> {
                err.println("jvmti-cli: watch cannot be nested");
                yield ExitCode.USAGE.code();
            }
            default -> runCommand(words, out, err);
        };
    }

    private int runCommand(List<String> words, PrintWriter out, PrintWriter err) {
        String name = words.get(0);
        ShellContext context = new ShellContext(out, err, launch, connection, target.pid());
        commandContext = context;
        if (words.size() <= 2 && !NOT_IN_SHELL.contains(name)) {
            // the bare forms without picocli, as outside the shell: its model costs more than a warm answer
            List<String> bare = new ArrayList<>(words);
            bare.add(Long.toString(target.pid()));
            Integer code = BareCommand.runIfBare(context, bare.toArray(String[]::new));
            if (code != null) {
                return code;
            }
        }
        CommandLine commandLine = JvmtiCli.commandLineFor(context, new String[] {name}); // that command's model alone
        CommandLine command = NOT_IN_SHELL.contains(name) ? null : commandLine.getSubcommands().get(name);
        if (command == null) {
            err.println("jvmti-cli: unknown command '" + name + "' (try help)");
            return ExitCode.USAGE.code();
        }
        commandLine.setDefaultValueProvider(argument -> {
            if (argument instanceof OptionSpec option) {
                return switch (option.longestName()) {
                    case "--timeout" -> launch.givenTimeout().map(timeout -> timeout.toMillis() + "ms").orElse(null);
                    case "--verbose" -> Boolean.toString(launch.verbose());
                    default -> null;
                };
            }
            return null;
        });
        if (io.width().getAsInt() > 0) {
            commandLine.setUsageHelpWidth(Math.max(55, Math.min(160, io.width().getAsInt())));
        }
        List<String> args = new ArrayList<>();
        args.add(name);
        if (takesTarget(command)) {
            args.add(Long.toString(target.pid()));
        }
        args.addAll(words.subList(1, words.size()));
        return commandLine.execute(args.toArray(String[]::new));
    }

    /** Whether a subcommand takes the {@code <pid>} (it mixes in {@link TargetOption}). */
    static boolean takesTarget(CommandLine command) {
        return command.getCommandSpec().mixins().values().stream().anyMatch(mixin -> mixin.userObject() instanceof TargetOption);
    }

    /** The subcommands usable in the shell, with their one-line descriptions, in registration order. */
    Map<String, CommandLine> commands() {
        Map<String, CommandLine> commands = new LinkedHashMap<>();
        JvmtiCli.commandLine(launch).getSubcommands().forEach((name, command) -> {
            if (!NOT_IN_SHELL.contains(name) && !command.getCommandSpec().usageMessage().hidden()) {
                commands.put(name, command);
            }
        });
        return commands;
    }

    private int help(List<String> words, PrintWriter out, PrintWriter err) {
        if (words.size() > 2) {
            err.println("jvmti-cli: help takes at most one COMMAND");
            return ExitCode.USAGE.code();
        }
        if (words.size() == 2) {
            String name = words.get(1);
            if (name.equals("watch")) {
                out.println("watch [-n SECONDS] COMMAND: run COMMAND every SECONDS (default 2), redrawing the screen, until Ctrl-C.");
                return ExitCode.OK.code();
            }
            return runCommand(List.of(name, "--help"), out, err);
        }
        Map<String, CommandLine> commands = commands();
        int width = commands.keySet().stream().mapToInt(String::length).max().orElse(0) + 2;
        out.println("Commands: the options of each are those of 'jvmti-cli COMMAND'; the target (" + target.pid() + ") is implied.");
        commands.forEach((name, command) -> {
            String[] description = command.getCommandSpec().usageMessage().description();
            out.println("  " + name + " ".repeat(width - name.length()) + (description.length == 0 ? "" : description[0]));
        });
        out.println();
        out.println("Shell:");
        out.println("  COMMAND | grep [-cvinE] TEXT     keep the lines matching TEXT (a regular expression); -c count them,");
        out.println("                                   -v the others, -i any case, -n numbered, -E (TEXT is always extended),");
        out.println("                                   -A N, -B N, -C N: N lines of context after, before, around each");
        out.println("  COMMAND | head [-n N]            the first N lines (default 10), then end the command");
        out.println("  COMMAND | tail [-n N]            the last N lines (default 10)");
        out.println("  COMMAND > FILE, COMMAND >> FILE  write (append) the output to FILE");
        out.println("  COMMAND; COMMAND                 run one after the other");
        out.println("  watch [-n SECONDS] COMMAND       repeat COMMAND every SECONDS (default 2), redrawing, until Ctrl-C");
        out.println("  help [COMMAND]                   this, or the options of COMMAND");
        out.println("  exit, quit, Ctrl-D               leave the shell");
        out.println("Keys: Tab completes commands, options and thread names; Ctrl-R searches the history; Ctrl-C cancels a command.");
        return ExitCode.OK.code();
    }

    /**
     * Runs the command every interval; on the screen (toScreen), each frame written over the last
     * one in place (the cursor home, each line's old rest and the old lines below erased), the
     * screen cleared for the first frame only; elsewhere, frames one after another.
     */
    private int watch(List<String> words, List<Filter> filters, PrintWriter out, PrintWriter err, boolean toScreen) {
        ShellLine.Watch watch = ShellLine.Watch.of(words);
        double seconds = 2;
        if (watch.interval() != null) {
            try {
                seconds = Double.parseDouble(watch.interval());
            } catch (NumberFormatException e) {
                seconds = -1;
            }
            if (!(seconds >= 0.1 && seconds <= 86_400)) {
                err.println("jvmti-cli: watch -n takes a number of seconds from 0.1 to 86400, not '" + watch.interval() + "'");
                return ExitCode.USAGE.code();
            }
        }
        List<String> command = watch.command();
        if (command.isEmpty()) {
            err.println("jvmti-cli: usage: watch [-n SECONDS] COMMAND");
            return ExitCode.USAGE.code();
        }
        String header = "Every " + (seconds == Math.rint(seconds) ? Long.toString((long) seconds) : Double.toString(seconds))
                + "s: " + String.join(" ", command);
        DateTimeFormatter clock = DateTimeFormatter.ofPattern("HH:mm:ss");
        boolean firstFrame = true;
        while (true) {
            StringWriter frame = new StringWriter();
            int code = runFiltered(command, filters, new PrintWriter(frame), err);
            if (Thread.currentThread().isInterrupted()) {
                return ExitCode.OK.code();
            }
            if (code != 0) {
                return code;
            }
            String text = header + "    " + LocalTime.now().format(clock) + "\n\n" + clip(frame.toString(), io.width().getAsInt());
            out.write(toScreen ? onScreen(text, io.screen(), firstFrame) : text + "\n");
            out.flush();
            firstFrame = false;
            try {
                StandardOutput.sleep(Math.round(seconds * 1000));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return ExitCode.OK.code();
            }
        }
    }

    /** A frame as written over the screen: over the last frame in place where the screen can, else on a cleared screen. */
    static String onScreen(String text, Screen screen, boolean firstFrame) {
        if (firstFrame || !screen.redrawsInPlace()) {
            return screen.clear() + text;
        }
        StringBuilder drawn = new StringBuilder(screen.home());
        String[] lines = text.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            drawn.append(lines[i]).append(screen.eraseLineEnd());
            if (i < lines.length - 1) {
                drawn.append('\n');
            }
        }
        return drawn.append(screen.eraseBelow()).toString();
    }

    /** Cuts each line to width columns (0: no limit), so that a redrawn screen does not wrap. */
    static String clip(String text, int width) {
        if (width <= 0) {
            return text;
        }
        StringBuilder clipped = new StringBuilder();
        for (String line : text.split("\n", -1)) {
            if (clipped.length() > 0) {
                clipped.append('\n');
            }
            clipped.append(line.codePointCount(0, line.length()) <= width ? line : line.substring(0, line.offsetByCodePoints(0, width)));
        }
        return clipped.toString();
    }

    private static Writer unclosable(Writer writer) {
        return new java.io.FilterWriter(writer) {
            @Override
            public void close() throws IOException {
                flush();
            }
        };
    }
}
