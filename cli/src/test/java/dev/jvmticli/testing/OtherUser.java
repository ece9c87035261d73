package dev.jvmticli.testing;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A second, unprivileged user for tests of what other users can and cannot do. The tests run as
 * root; the user is created on first use with {@code useradd} (a system user without a home or a
 * login shell), and processes run as it through {@code setpriv}.
 */
public final class OtherUser {
    public static final String NAME = "jvmticli-other";

    private OtherUser() {
    }

    /** Skips the calling test unless this is root and the user exists or could be created. */
    public static void assume() {
        assumeTrue(isRoot(), "needs root to create and switch to another user");
        if (run("id", "-u", NAME) != 0) {
            int created = run("useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", NAME);
            // 9: created meanwhile by a concurrent test run
            assumeTrue(created == 0 || created == 9, "useradd failed with " + created);
        }
    }

    public static int uid() {
        return Integer.parseInt(output("id", "-u", NAME));
    }

    /** The command prefix that runs a program as this user, with the capabilities given (e.g. "dac_override"). */
    public static List<String> as(String... ambientCapabilities) {
        List<String> prefix = new ArrayList<>(List.of("setpriv", "--reuid=" + NAME, "--regid=" + NAME, "--clear-groups"));
        for (String capability : ambientCapabilities) {
            prefix.add("--inh-caps=+" + capability);
            prefix.add("--ambient-caps=+" + capability);
        }
        return prefix;
    }

    /**
     * A copy of path (a file or a directory tree) in a fresh directory that every user can read,
     * since the build tree may lie under a directory closed to others (such as /root).
     */
    public static Path readableCopy(Path path) {
        try {
            Path dir = Files.createTempDirectory(Path.of("/var/tmp"), "jvmti-cli-test-");
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
            Path copy = dir.resolve(path.getFileName());
            try (Stream<Path> files = Files.walk(path)) {
                for (Path source : (Iterable<Path>) files::iterator) {
                    Path target = copy.resolve(path.relativize(source).toString());
                    Files.copy(source, target, StandardCopyOption.REPLACE_EXISTING);
                    Files.setPosixFilePermissions(target, PosixFilePermissions.fromString(Files.isDirectory(source) ? "rwxr-xr-x" : "rw-r--r--"));
                }
            }
            return copy;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Removes a copy made by readableCopy, with its directory. */
    public static void delete(Path copy) {
        try (Stream<Path> files = Files.walk(copy.getParent())) {
            files.sorted((a, b) -> b.getNameCount() - a.getNameCount()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Whether the tests run as root (as CI does). */
    public static boolean isRoot() {
        try {
            return ((Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid")) == 0;
        } catch (IOException e) {
            return false;
        }
    }

    private static int run(String... command) {
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                return -1;
            }
            return process.exitValue();
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    private static String output(String... command) {
        try {
            Process process = new ProcessBuilder(command).start();
            String out = new String(process.getInputStream().readAllBytes()).strip();
            process.waitFor(30, TimeUnit.SECONDS);
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
