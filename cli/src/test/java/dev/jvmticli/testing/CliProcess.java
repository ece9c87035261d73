package dev.jvmticli.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** Runs the packaged CLI jar in its own JVM: with another JDK, as another user, or to kill it. */
public final class CliProcess {
    private CliProcess() {
    }

    /** The shaded jar `mvn package` built (the integration tests run after it). */
    public static Path jar() {
        Path jar = TargetJvm.testClasses().getParent().resolve("jvmti-cli.jar");
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException(jar + " is missing: run the integration tests through mvn verify");
        }
        return jar;
    }

    public static List<String> command(List<String> wrapper, Jdks.Jdk jdk, Path jar, String... args) {
        List<String> command = new ArrayList<>(wrapper);
        command.add(jdk.java().toString());
        command.add("-Xshare:auto");
        command.add("-XX:TieredStopAtLevel=1");
        command.add("-jar");
        command.add(jar.toString());
        command.addAll(List.of(args));
        return command;
    }

    public static Process start(List<String> wrapper, Jdks.Jdk jdk, Path jar, String... args) {
        CommandLog.record("CLI process on " + jdk + (wrapper.isEmpty() ? "" : " under " + String.join(" ", wrapper)), args);
        try {
            return new ProcessBuilder(command(wrapper, jdk, jar, args)).directory(Path.of("/tmp").toFile()).start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Runs to the end (60 s at most) and returns what it printed. */
    public static CliRun.Result run(List<String> wrapper, Jdks.Jdk jdk, Path jar, String... args) {
        Process process = start(wrapper, jdk, jar, args);
        CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> read(process.getInputStream()));
        CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> read(process.getErrorStream()));
        try {
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new AssertionError("the CLI did not finish in 60 s: " + String.join(" ", args));
            }
            return new CliRun.Result(process.exitValue(), out.get(), err.get());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        } catch (java.util.concurrent.ExecutionException e) {
            throw new AssertionError(e);
        }
    }

    public static CliRun.Result run(Jdks.Jdk jdk, String... args) {
        return run(List.of(), jdk, jar(), args);
    }

    private static String read(java.io.InputStream in) {
        try {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
