package dev.jvmticli.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A Java runtime without jdk.attach and jdk.jcmd, as production images carry: made by jlink from
 * the JDK running the tests with only the modules the CLI uses (java.base; java.logging for
 * JLine's terminal in the shell), and the JDK's CDS archive, as a JRE image carries one. Made once
 * and kept in target/, since jlink takes a while.
 */
public final class Jre {
    public static final List<String> MODULES = List.of("java.base", "java.logging");

    private Jre() {
    }

    /** The runtime, as a {@link Jdks.Jdk} that {@link CliProcess} runs the CLI jar with. */
    public static Jdks.Jdk get() {
        return Made.RUNTIME;
    }

    private static final class Made {
        static final Jdks.Jdk RUNTIME = make();
    }

    private static Jdks.Jdk make() {
        Jdks.Jdk jdk = Jdks.current();
        Path home = TargetJvm.testClasses().getParent().resolve("jre-" + jdk.version() + "-" + String.join("+", MODULES) + "-cds");
        if (!Files.isExecutable(home.resolve("bin/java"))) {
            Path partial = home.resolveSibling(home.getFileName() + ".partial");
            try {
                deleteTree(partial); // left by a run that was killed
                Process jlink = new ProcessBuilder(jdk.home().resolve("bin/jlink").toString(), "--add-modules", String.join(",", MODULES),
                        "--no-header-files", "--no-man-pages", "--generate-cds-archive", "--output", partial.toString())
                        .redirectErrorStream(true).start();
                String output = new String(jlink.getInputStream().readAllBytes());
                if (!jlink.waitFor(5, TimeUnit.MINUTES) || jlink.exitValue() != 0) {
                    throw new IllegalStateException("jlink failed: " + output);
                }
                Files.move(partial, home);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
        return new Jdks.Jdk(home, jdk.feature(), jdk.version() + " (jlink: " + String.join(", ", MODULES) + ")");
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (var files = Files.walk(dir)) {
            for (Path file : (Iterable<Path>) files.sorted(java.util.Comparator.reverseOrder())::iterator) {
                Files.delete(file);
            }
        }
    }
}
