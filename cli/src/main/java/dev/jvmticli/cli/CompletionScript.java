package dev.jvmticli.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.AutoComplete;

/**
 * Writes the bash completion script of jvmti-cli from the picocli command model, so that it
 * always lists the subcommands and options registered in {@link JvmtiCli}. The build writes it to
 * {@code cli/target/completions/}; {@code completions/generate} refreshes the committed copy.
 * The same script works in zsh (it loads bashcompinit itself).
 */
public final class CompletionScript {
    private CompletionScript() {
    }

    /** The script's text. */
    public static String bash() {
        StringWriter discard = new StringWriter();
        CliContext context = new CliContext(new PrintWriter(discard), new PrintWriter(discard));
        return AutoComplete.bash("jvmti-cli", JvmtiCli.commandLine(context));
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
