package dev.jvmticli.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "shell", mixinStandardHelpOptions = true,
        description = {
            "An interactive shell on one JVM: every command with its usual options, over one connection, "
                    + "with history, tab completion, 'watch', '| grep TEXT' and '> FILE'. Also 'jvmti-cli <pid>'.",
            "Without a terminal it reads commands from standard input, one line each; the exit code is 0 when every "
                    + "command succeeded, else that of the first that failed."})
final class ShellCommand implements Callable<Integer> {
    private final CliContext context;

    @Mixin
    TargetOption target;

    @Option(names = "-c", paramLabel = "COMMANDS", description = "Run these commands (separated by ';') and exit, e.g. -c 'threads --top 3; detach'.")
    String commands;

    ShellCommand(CliContext context) {
        this.context = context;
    }

    @Override
    public Integer call() {
        return context.shell().launch(context, target.resolve(), commands);
    }
}
