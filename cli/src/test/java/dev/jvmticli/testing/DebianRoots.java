package dev.jvmticli.testing;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import javax.tools.ToolProvider;

/**
 * The JDKs of the Debian root file systems that {@code .ci/roots} makes (Debian 11: glibc 2.31,
 * OpenJDK 11 and 17; Debian 13: glibc 2.41, OpenJDK 21 and 25), each run on its own
 * distribution's C library. The roots are made, or found made, once per test JVM; the targets'
 * classes are compiled for Java 11 into a directory inside each root, removed when the tests end.
 */
public final class DebianRoots {
    /** The machine cache the roots are kept in between runs. */
    public static final Path CACHE = Path.of(System.getenv().getOrDefault("JVMTI_CLI_ROOTS", "/var/cache/jvmti-cli/roots"));
    private static final Path SCRIPT = Path.of(System.getProperty("user.dir")).resolve("../.ci/roots").normalize();
    private static final Path SOURCES = Path.of(System.getProperty("user.dir")).resolve("src/test/java");
    private static final Map<Path, Path> CLASSES = new ConcurrentHashMap<>();
    /** qemu-user for arm64 programs, as .ci/roots copies it into the arm64 root. */
    private static final String QEMU = "/usr/bin/qemu-aarch64-static";

    private DebianRoots() {
    }

    /** A JDK inside a root: its home as the root's processes see it. */
    public record RootJdk(String suite, Path root, Path home, int feature, String version) {
        /** As a {@link Jdks.Jdk} whose paths are the ones inside the root, for {@link TargetJvm#startWrapped}. */
        public Jdks.Jdk inside() {
            return new Jdks.Jdk(home, feature, version);
        }

        public String tool(String name) {
            return home.resolve("bin").resolve(name).toString();
        }

        @Override
        public String toString() {
            return "JDK " + version + " in Debian " + suite;
        }
    }

    /** Every JDK of every root, the roots made first if need be; skips the test unless this is root. */
    public static Stream<RootJdk> jdks() {
        assumeTrue(OtherUser.isRoot(), "debootstrap, chroot and unshare need root");
        return Made.JDKS.stream();
    }

    /**
     * The arm64 Debian 12 root with OpenJDK 17 whose JVMs run under qemu-user (the roots made first
     * if need be); skips the test unless this is root.
     */
    public static RootJdk arm64Jdk() {
        assumeTrue(OtherUser.isRoot(), "debootstrap, chroot and unshare need root");
        Made.JDKS.size(); // .ci/roots makes every root, this one too, on the first use of any
        Path root = CACHE.resolve("bookworm-arm64");
        return new RootJdk("bookworm-arm64", root, Path.of("/usr/lib/jvm/java-17-openjdk-arm64"), 17, "17 (arm64)");
    }

    /**
     * The wrapper starting an arm64 JVM in its root in a mount namespace of its own (as
     * {@link #ownMountNamespace}), by qemu-user named outright: it runs whether or not binfmt_misc
     * hands arm64 programs to qemu on this machine.
     */
    public static List<String> underQemu(Path root) {
        List<String> wrapper = new ArrayList<>(ownMountNamespace(root));
        wrapper.add(QEMU);
        return List.copyOf(wrapper);
    }

    /** jstack -l, or another tool of an arm64 JDK, run by qemu-user inside the target's root and mount namespace. */
    public static String toolOutputUnderQemu(RootJdk jdk, long pid, String tool, String... args) {
        List<String> command = new ArrayList<>(List.of("nsenter", "-t", Long.toString(pid), "-m", "-r", "-w", QEMU, jdk.tool(tool)));
        command.addAll(List.of(args));
        return run(command.toArray(String[]::new));
    }

    private static final class Made {
        static final List<RootJdk> JDKS = make();
    }

    private static List<RootJdk> make() {
        try {
            Process script = new ProcessBuilder("bash", SCRIPT.toString(), CACHE.toString()).redirectErrorStream(true).start();
            String output = new String(script.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            if (script.waitFor() != 0) {
                throw new IllegalStateException(SCRIPT + " failed:\n" + output);
            }
            System.out.print(output);
            List<RootJdk> jdks = new ArrayList<>();
            for (String suite : List.of("bullseye", "trixie")) {
                Path root = CACHE.resolve(suite);
                try (Stream<Path> homes = Files.list(root.resolve("usr/lib/jvm"))) {
                    for (Path home : homes.sorted().toList()) {
                        Path release = home.resolve("release");
                        if (Files.isSymbolicLink(home) || !Files.exists(release)) {
                            continue;
                        }
                        Properties properties = new Properties();
                        try (var in = Files.newBufferedReader(release)) {
                            properties.load(in);
                        }
                        String version = properties.getProperty("JAVA_VERSION", "\"0\"").replace("\"", "");
                        jdks.add(new RootJdk(suite, root, Path.of("/").resolve(root.relativize(home)),
                                Integer.parseInt(version.split("[.+-]")[0]), version));
                    }
                }
            }
            return List.copyOf(jdks);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /**
     * A directory inside the root (its path as the root's processes see it) holding the given
     * targets and what they use, compiled for Java 11, and a copy of the agent library
     * ({@code libjvmticli.so}), for start-up mode. One directory per root and test JVM; each call
     * compiles its targets into it.
     */
    public static synchronized Path classes(Path root, Path agentLibrary, Class<?>... targets) {
        Path inside = CLASSES.computeIfAbsent(root, r -> directory(r, agentLibrary));
        compile(root.resolve(inside.toString().substring(1)), targets);
        return inside;
    }

    private static Path directory(Path root, Path agentLibrary) {
        try {
            Path inside = Path.of("/opt", "jvmti-cli-it-" + ProcessHandle.current().pid());
            Path directory = root.resolve(inside.toString().substring(1));
            Files.createDirectories(directory);
            Runtime.getRuntime().addShutdownHook(new Thread(() -> delete(directory)));
            Files.copy(agentLibrary, directory.resolve("libjvmticli.so"));
            return inside;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void compile(Path directory, Class<?>... targets) {
        // the class path is the output alone: javac would otherwise take the Java 17 classes of this JVM's class path
        List<String> arguments = new ArrayList<>(List.of("--release", "11", "-d", directory.toString(), "-cp", directory.toString(),
                "-sourcepath", SOURCES.toString()));
        for (Class<?> target : targets) {
            arguments.add(SOURCES.resolve(target.getName().replace('.', '/') + ".java").toString());
        }
        int exit = ToolProvider.getSystemJavaCompiler().run(null, null, null, arguments.toArray(String[]::new));
        if (exit != 0) {
            throw new IllegalStateException("javac --release 11 failed on " + arguments);
        }
    }

    private static void delete(Path directory) {
        try (Stream<Path> files = Files.walk(directory)) {
            files.sorted((a, b) -> b.getNameCount() - a.getNameCount()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The wrapper starting a JVM in the root with a mount namespace of its own, /proc mounted there
     * and a private tmpfs on its /tmp (the cached root's own /tmp stays as it was).
     */
    public static List<String> ownMountNamespace(Path root) {
        return List.of("unshare", "--mount", "--fork", "--kill-child", "--propagation", "private", "sh", "-c",
                "mount -t proc proc \"$0/proc\" && mount -t tmpfs -o mode=1777 tmpfs \"$0/tmp\" && exec chroot \"$0\" \"$@\"",
                root.toString());
    }

    /**
     * Where the CLI, as root, places the agent library inside the root: removed before a test of a
     * plain chroot, so that a copy left there by an earlier run cannot stand in for the one this
     * run must place through /proc/pid/root.
     */
    public static Path placedLibraries(Path root) {
        return root.resolve("tmp/.jvmti-cli-lib-0");
    }

    public static void removePlacedLibraries(Path root) {
        if (Files.exists(placedLibraries(root))) {
            delete(placedLibraries(root));
        }
    }

    /** The wrapper starting a JVM in the root in this mount namespace: needs {@link #mountProc}. */
    public static List<String> plainChroot(Path root) {
        return List.of("chroot", root.toString());
    }

    /**
     * Mounts proc on the root's /proc in this mount namespace (what a chroot's JVM needs to start:
     * its launcher finds its libraries through /proc/self/exe); {@link #unmountProc} undoes it.
     * Mounts stack, so runs sharing the cached root do not undo each other's.
     */
    public static void mountProc(Path root) {
        run("mount", "-t", "proc", "proc", root.resolve("proc").toString());
    }

    public static void unmountProc(Path root) {
        run("umount", root.resolve("proc").toString());
    }

    /** jstack -l, or another tool of the target's JDK, run inside the target's root and mount namespace. */
    public static String toolOutput(RootJdk jdk, long pid, String tool, String... args) {
        List<String> command = new ArrayList<>(List.of("nsenter", "-t", Long.toString(pid), "-m", "-r", "-w", jdk.tool(tool)));
        command.addAll(List.of(args));
        return run(command.toArray(String[]::new));
    }

    /**
     * A copy of a file (a server's jar) in a directory of its own inside the root, removed when the
     * tests end: its path as the root's processes see it.
     */
    public static Path copyInto(Path root, Path file) {
        try {
            Path inside = Path.of("/opt", "jvmti-cli-it-" + ProcessHandle.current().pid() + "-" + file.getFileName());
            Path directory = root.resolve(inside.toString().substring(1));
            Files.createDirectories(directory);
            Runtime.getRuntime().addShutdownHook(new Thread(() -> delete(directory)));
            Files.copy(file, directory.resolve(file.getFileName()), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            return inside.resolve(file.getFileName());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String run(String... command) {
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            String output = new String(process.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            if (process.waitFor() != 0) {
                throw new IllegalStateException(String.join(" ", command) + " failed:\n" + output);
            }
            return output;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
