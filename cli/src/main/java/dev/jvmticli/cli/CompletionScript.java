package dev.jvmticli.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.AutoComplete;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Writes the bash completion script of jvmti-cli from the picocli command model, so that it
 * always lists the subcommands and options registered in {@link JvmtiCli}. The build writes it to
 * {@code cli/target/completions/}; {@code completions/generate} refreshes the committed copy.
 * The same script works in zsh (it loads bashcompinit itself). picocli's generator leaves out the
 * negative form of a negatable option ({@code --no-group}); it is added beside the positive one.
 */
public final class CompletionScript {
    private CompletionScript() {
    }

    /** The script's text. */
    public static String bash() {
        StringWriter discard = new StringWriter();
        CliContext context = new CliContext(new PrintWriter(discard), new PrintWriter(discard));
        CommandLine jvmtiCli = JvmtiCli.commandLine(context);
        return withNegativeForms(AutoComplete.bash("jvmti-cli", jvmtiCli), jvmtiCli);
    }

    private static String withNegativeForms(String script, CommandLine command) {
        String function = "function _picocli_" + command.getCommandSpec().qualifiedName("_") + "() {";
        for (OptionSpec option : command.getCommandSpec().options()) {
            if (!option.negatable()) {
                continue;
            }
            for (String name : option.names()) {
                String negative = command.getNegatableOptionTransformer().makeNegative(name, command.getCommandSpec());
                script = addFlagAfter(script, function, "'" + name + "'", "'" + negative + "'");
            }
        }
        for (CommandLine subcommand : command.getSubcommands().values()) {
            script = withNegativeForms(script, subcommand);
        }
        return script;
    }

    /** Adds {@code added} after {@code flag} on the flag_opts line of the given completion function. */
    private static String addFlagAfter(String script, String function, String flag, String added) {
        int start = script.indexOf(function);
        int line = script.indexOf("local flag_opts=", start);
        int end = script.indexOf('\n', line);
        if (start < 0 || line < 0 || end < 0 || !script.substring(line, end).contains(flag)) {
            throw new IllegalStateException("no flag " + flag + " in " + function + " of picocli's script");
        }
        String flags = script.substring(line, end).replace(flag, flag + " " + added);
        return script.substring(0, line) + flags + script.substring(end);
    }

    /** Usage: CompletionScript FILE. */
    public static void main(String[] args) throws IOException {
        if (args.length != 1) {
            throw new IllegalArgumentException("usage: CompletionScript FILE");
        }
        Path file = Path.of(args[0]);
        if (file.getParent() != null) {
            Files.createDirectories(file.getParent());
        }
        Files.writeString(file, bash(), StandardCharsets.UTF_8);
    }
}
