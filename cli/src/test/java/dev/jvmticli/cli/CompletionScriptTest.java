package dev.jvmticli.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The committed completion script is what the build generates, and bash completes with it. */
class CompletionScriptTest {
    private static final Path COMMITTED = Path.of("..", "completions", "jvmti-cli.bash");
    private static final Path BUILT = Path.of("target", "completions", "jvmti-cli.bash");

    @Test
    void theCommittedScriptIsTheOneTheBuildGenerates() throws IOException {
        assertTrue(Files.exists(BUILT), "the build writes " + BUILT.toAbsolutePath());
        assertEquals(Files.readString(BUILT), Files.readString(COMMITTED),
                "completions/jvmti-cli.bash is stale: run 'mvn -B -o package -DskipTests && ./completions/generate' and commit it");
        assertEquals(CompletionScript.bash(), Files.readString(BUILT));
    }

    /** What the completion function puts in COMPREPLY for the words of a command line, the last one being completed. */
    private static List<String> complete(String... words) throws Exception {
        String script = "source " + COMMITTED.toAbsolutePath() + "\n"
                + "compopt() { :; }\n" // only a completion bash itself started may call the builtin
                + "COMP_WORDS=(" + String.join(" ", java.util.Arrays.stream(words).map(w -> "'" + w + "'").toList()) + ")\n"
                + "COMP_CWORD=" + (words.length - 1) + "\n"
                + "COMP_LINE=\"${COMP_WORDS[*]}\"\nCOMP_POINT=${#COMP_LINE}\n"
                + "_complete_jvmti-cli jvmti-cli \"${COMP_WORDS[COMP_CWORD]}\" \"${COMP_WORDS[COMP_CWORD-1]}\"\n"
                + "printf '%s\\n' \"${COMPREPLY[@]}\"\n";
        Process bash = new ProcessBuilder("bash", "--norc", "--noprofile", "-c", script).redirectErrorStream(true).start();
        String out = new String(bash.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(bash.waitFor(30, TimeUnit.SECONDS));
        assertEquals(0, bash.exitValue(), out);
        return out.lines().map(String::strip).filter(l -> !l.isEmpty()).sorted().toList();
    }

    @Test
    void bashCompletesSubcommandsOptionsAndEnumValues() throws Exception {
        assertEquals(List.of("threads"), complete("jvmti-cli", "thr"));
        assertEquals(List.of("shell"), complete("jvmti-cli", "sh"));
        assertEquals(List.of("--sort"), complete("jvmti-cli", "threads", "--so"));
        assertEquals(List.of("--timeout", "--top"), complete("jvmti-cli", "threads", "--t"));
        assertEquals(List.of("cpu", "id", "name", "state"), complete("jvmti-cli", "threads", "123", "--sort", ""));
        assertEquals(List.of("-c"), complete("jvmti-cli", "shell", "-c"));
        assertEquals(List.of("--no-group"), complete("jvmti-cli", "stacks", "123", "--no-"));
    }
}
