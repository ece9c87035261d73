package dev.jvmticli.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * A Java runtime without jdk.attach and jdk.jcmd, as production images carry: made by jlink from
 * the JDK running the tests with only the modules the CLI uses (java.base; java.logging for
 * JLine's terminal in the shell), and the JDK's CDS archive, as a JRE image carries one.
 *
 * <p>Each test JVM makes its own, once, in a new directory of target/ that no other run knows of,
 * and removes it when it exits. A runtime kept in target/ under a fixed name was shared with
 * whatever else used that name: a run that made it while another did (each deleting the other's
 * half-made output), a clean or copy of target/ cut short. A runtime whose bin/java was there
 * but not yet, or no longer, its lib/libjli.so then exited 127 in JreIT.
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
        try {
            Path dir = Files.createTempDirectory(TargetJvm.testClasses().getParent(), "jre-" + jdk.version() + "-");
            Runtime.getRuntime().addShutdownHook(new Thread(() -> deleteTree(dir)));
            // another user runs it too (JreIT.anotherUserCannotAttachToRootsJvm)
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
            Path home = dir.resolve(String.join("+", MODULES) + "-cds");
            Process jlink = new ProcessBuilder(jdk.home().resolve("bin/jlink").toString(), "--add-modules", String.join(",", MODULES),
                    "--no-header-files", "--no-man-pages", "--generate-cds-archive", "--output", home.toString())
                    .redirectErrorStream(true).start();
            String output = new String(jlink.getInputStream().readAllBytes());
            if (jlink.waitFor() != 0) {
                throw new IllegalStateException("jlink failed: " + output);
            }
            return new Jdks.Jdk(home, jdk.feature(), jdk.version() + " (jlink: " + String.join(", ", MODULES) + ")");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static void deleteTree(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path file : (Iterable<Path>) files.sorted(Comparator.reverseOrder())::iterator) {
                Files.delete(file);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
