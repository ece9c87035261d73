package dev.jvmticli.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** The real {@code jvmti-cli} launcher script and the packaged jar, run as a separate process on a chosen JDK. */
public final class Launcher {
    private Launcher() {
    }

    /** The worktree's root, where the launcher lives (test classes are in cli/target/test-classes). */
    public static Path root() {
        try {
            return Path.of(Launcher.class.getProtectionDomain().getCodeSource().getLocation().toURI()).getParent().getParent().getParent();
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    public static Path script() {
        return root().resolve("jvmti-cli");
    }

    /** Runs the launcher with the JDK, feeding stdin (a pipe, not a terminal), and waits up to 60 s. */
    public static CliRun.Result run(Jdks.Jdk jdk, String stdin, String... args) {
        List<String> command = new ArrayList<>();
        command.add(script().toString());
        command.addAll(List.of(args));
        CommandLog.record("launcher on " + jdk + (stdin.isEmpty() ? "" : ", stdin: " + stdin.strip().replace("\n", "; ")), args);
        ProcessBuilder builder = new ProcessBuilder(command);
        builder.environment().put("JAVA_HOME", jdk.home().toString());
        try {
            Path out = Files.createTempFile("jvmti-cli-out", ".txt");
            Path err = Files.createTempFile("jvmti-cli-err", ".txt");
            try {
                Process process = builder.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
                process.getOutputStream().write(stdin.getBytes(StandardCharsets.UTF_8));
                process.getOutputStream().close();
                if (!process.waitFor(60, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                    throw new AssertionError("jvmti-cli " + args[0] + " did not end in 60 s");
                }
                return new CliRun.Result(process.exitValue(), Files.readString(out), Files.readString(err));
            } finally {
                Files.deleteIfExists(out);
                Files.deleteIfExists(err);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
