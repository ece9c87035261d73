package dev.jvmticli.cli;

import dev.jvmticli.failure.CliFailure;
import dev.jvmticli.failure.ExitCode;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ScopeType;

/** The top command: global options, subcommands, and how failures become exit codes. */
@Command(name = "jvmti-cli",
        mixinStandardHelpOptions = true,
        version = "jvmti-cli 0.1.0",
        description = "Live-attach diagnostics for running JVMs through a resident JVMTI agent.",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:success",
            "1:the command failed in the agent or the CLI",
            "2:bad command line",
            "3:no such process",
            "4:the process is not a JVM",
            "5:the JVM refuses dynamically loaded agents",
            "6:the agent failed to start inside the target",
            "7:permission denied",
            "8:timed out",
            "9:the target exited or dropped the connection",
            "10:a deadlock was found (deadlocks)",
            "11:the resident agent speaks another protocol version",
            "12:--virtual on a JVM without virtual threads (before JDK 21)",
            "13:the JVM runs on musl or a glibc older than 2.17 (nothing is loaded)"
        })
public final class JvmtiCli implements Callable<Integer> {
    /** The subcommands, in the order help lists them. */
    private static final List<Class<?>> SUBCOMMANDS = List.of(
            ListCommand.class,
            ThreadsCommand.class,
            StacksCommand.class,
            MonitorsCommand.class,
            DeadlocksCommand.class,
            DumpCommand.class,
            AllocCommand.class,
            ContentionCommand.class,
            PausesCommand.class,
            ProfileCommand.class,
            JitCommand.class,
            TraceCommand.class,
            ExceptionsCommand.class,
            HeapCommand.class,
            MemoryCommand.class,
            DetachCommand.class,
            ShellCommand.class,
            DemoCommand.class,
            AgentPathCommand.class,
            CommandLine.HelpCommand.class);

    private final CliContext context;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Parameters(arity = "0..1", paramLabel = "<pid>", description = "With no command: open the shell on this JVM (as 'shell <pid>').")
    String shellTarget;

    public JvmtiCli(CliContext context) {
        this.context = context;
    }

    @Option(names = "--timeout", scope = ScopeType.INHERIT, paramLabel = "DURATION", converter = DurationConverter.class,
            description = "How long to wait for the attach and for each answer (default: 10s; for a heap histogram "
                    + "30s plus 10s per GiB of the target's maximum heap, at most 10m).")
    void timeout(Duration timeout) {
        context.timeout(timeout);
    }

    @Option(names = "--verbose", scope = ScopeType.INHERIT, description = "Print stack traces of failures.")
    void verbose(boolean verbose) {
        context.verbose(verbose);
    }

    @Override
    public Integer call() {
        if (shellTarget == null) {
            throw new CommandLine.ParameterException(spec.commandLine(), "a command is required");
        }
        CommandLine shell = spec.subcommands().get("shell");
        ShellCommand command = shell.getCommand();
        command.target = new TargetOption();
        command.target.target = shellTarget;
        try {
            command.target.resolve();
        } catch (CliFailure failure) {
            if (failure.exitCode() == ExitCode.USAGE && !shellTarget.chars().allMatch(Character::isDigit)) {
                throw new CliFailure(ExitCode.USAGE, "'" + shellTarget + "' is not a command, a process id, or the name of a running JVM"
                        + " (see jvmti-cli --help and jvmti-cli list)");
            }
            throw failure;
        }
        return command.call();
    }

    /** A command line for one run, with its failures mapped to exit codes and one-line messages. */
    public static CommandLine commandLine(CliContext context) {
        return commandLine(context, SUBCOMMANDS);
    }

    /**
     * The command line for one launcher run: when the first argument names a one-shot command, only
     * that command's model is built. picocli builds every model by reflection at start-up, which
     * is a good part of what a cold run costs; help, the shell and completion get the whole tree.
     */
    public static CommandLine commandLineFor(CliContext context, String[] args) {
        for (Class<?> type : SUBCOMMANDS) {
            String name = type.getAnnotation(Command.class).name();
            if (args.length > 0 && args[0].equals(name) && !name.equals("help") && !name.equals("shell")) {
                return commandLine(context, List.of(type));
            }
        }
        return commandLine(context);
    }

    private static CommandLine commandLine(CliContext context, List<Class<?>> subcommands) {
        ContextFactory factory = new ContextFactory(context);
        CommandLine commandLine = new CommandLine(new JvmtiCli(context), factory);
        for (Class<?> type : subcommands) {
            try {
                commandLine.addSubcommand(factory.create(type));
            } catch (Exception e) {
                throw new IllegalStateException("cannot create the " + type.getSimpleName() + " command", e);
            }
        }
        commandLine.setOut(context.out());
        commandLine.setErr(context.err());
        commandLine.setExecutionExceptionHandler((exception, failed, parseResult) ->
                FailureReport.print(context, exception, failed.getCommandSpec().qualifiedName()));
        commandLine.setParameterExceptionHandler((exception, args) -> {
            CommandLine failed = exception.getCommandLine();
            context.err().println("jvmti-cli: " + exception.getMessage());
            context.err().println("Try '" + failed.getCommandSpec().qualifiedName() + " --help'.");
            return ExitCode.USAGE.code();
        });
        return commandLine;
    }
}
