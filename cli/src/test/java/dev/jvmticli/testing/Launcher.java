package dev.jvmticli.testing;

import dev.jvmticli.app.Main;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** The real {@code jvmti-cli} launcher script and the packaged jar, run as a separate process on a chosen JDK. */
public final class Launcher {
    /** What -Xlog:class+load says of a class taken from a dynamic CDS archive (an AOT cache: without " (top)"). */
    private static final String FROM_ARCHIVE = "shared objects file";

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
        return run(script(), jdk, Map.of(), stdin, args);
    }

    /**
     * Runs a launcher script (this checkout's, or one unpacked from the release archive) with the
     * JDK and these environment variables added. The CDS archives the launcher makes go to
     * cli/target/launcher-cache unless environment names another XDG_CACHE_HOME: not the user's.
     */
    public static CliRun.Result run(Path script, Jdks.Jdk jdk, Map<String, String> environment, String stdin, String... args) {
        List<String> command = new ArrayList<>();
        command.add(script.toString());
        command.addAll(List.of(args));
        CommandLog.record("launcher on " + jdk + (stdin.isEmpty() ? "" : ", stdin: " + stdin.strip().replace("\n", "; ")), args);
        ProcessBuilder builder = new ProcessBuilder(command);
        builder.environment().put("JAVA_HOME", jdk.home().toString());
        builder.environment().put("XDG_CACHE_HOME", root().resolve("cli/target/launcher-cache").toString());
        builder.environment().putAll(environment);
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

    /**
     * Whether a source that {@link #mainClassSource} returned is an archive the launcher chose: no
     * JDK's own archive holds the CLI's classes.
     */
    public static boolean isArchive(String source) {
        return source.startsWith(FROM_ARCHIVE);
    }

    /**
     * Runs the launcher as {@link #run(Path, Jdks.Jdk, Map, String, String...)} does, with its JVM
     * logging class loading to log, and returns where it took the CLI's main class from: an
     * archive (see {@link #isArchive}), or the jar's URL.
     */
    public static String mainClassSource(Path script, Jdks.Jdk jdk, Map<String, String> environment, Path log, String... args) throws IOException {
        Map<String, String> logging = new HashMap<>(environment);
        logging.put("JAVA_TOOL_OPTIONS", "-Xlog:class+load=info:file=" + log);
        CliRun.Result result = run(script, jdk, logging, "", args);
        if (result.exit() != 0) {
            throw new AssertionError(result.toString());
        }
        String prefix = " " + Main.class.getName() + " source: ";
        return Files.readAllLines(log).stream().filter(line -> line.contains(prefix)).findFirst()
                .map(line -> line.substring(line.indexOf(prefix) + prefix.length())).orElseThrow(() -> new AssertionError("no " + prefix + " in " + log));
    }
}
