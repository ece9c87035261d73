package dev.jvmticli.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jvmticli.targets.CounterTarget;
import dev.jvmticli.testing.CliProcess;
import dev.jvmticli.testing.CliRun.Result;
import dev.jvmticli.testing.Jdks;
import dev.jvmticli.testing.Launcher;
import dev.jvmticli.testing.TargetJvm;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The release archive `mvn package` makes, unpacked into a temporary directory, run from elsewhere and through a symlink on PATH. */
class ReleaseArchiveIT {
    @TempDir
    Path temp;

    private static Path archive() throws IOException {
        return archive("linux-x64");
    }

    /** The release archive for the platform (linux-x64, linux-aarch64) that the build made. */
    static Path archive(String platform) throws IOException {
        List<Path> archives = archives(platform);
        assertEquals(1, archives.size(), archives.toString());
        return archives.get(0);
    }

    private static List<Path> archives(String platform) throws IOException {
        try (Stream<Path> files = Files.list(CliProcess.jar().getParent())) {
            return files.filter(f -> f.getFileName().toString().matches("jvmti-cli-.+-" + platform + "\\.tar\\.gz")).toList();
        }
    }

    /**
     * A linux-aarch64 archive exists where, and only where, the build made the aarch64 agent (the
     * jar carries it), and holds what the linux-x64 one does (Aarch64IT runs it on an arm64 JVM).
     */
    @Test
    void anAarch64ArchiveOnlyBesideTheAarch64Agent() throws Exception {
        boolean aarch64Agent;
        try (JarFile jar = new JarFile(CliProcess.jar().toFile())) {
            aarch64Agent = jar.getEntry("dev/jvmticli/native/linux-aarch64/libjvmticli.so") != null;
        }
        List<Path> aarch64 = archives("linux-aarch64");
        assertEquals(aarch64Agent ? 1 : 0, aarch64.size(), aarch64.toString());
        if (aarch64Agent) {
            Result x64 = run(List.of("tar", "-tvzf", archive().toString()), temp, "");
            Result arm = run(List.of("tar", "-tvzf", aarch64.get(0).toString()), temp, "");
            assertEquals(0, arm.exit(), arm.toString());
            // the same names, modes and sizes (tar -tv: mode owner size date time name)
            assertEquals(withoutDates(x64.out()), withoutDates(arm.out()));
        }
    }

    private static List<String> withoutDates(String listing) {
        return listing.lines().map(line -> line.split(" +")).map(f -> f[0] + " " + f[2] + " " + f[5]).sorted().toList();
    }

    @Test
    void holdsTheLauncherTheJarTheCompletionScriptAndTheDocs() throws Exception {
        Path archive = archive();
        String base = archive.getFileName().toString().replace("-linux-x64.tar.gz", "");
        Set<String> expected = new TreeSet<>(Set.of(base + "/bin/jvmti-cli", base + "/lib/jvmti-cli.jar",
                base + "/completions/jvmti-cli.bash", base + "/README.md", base + "/LICENSE", base + "/NOTICE",
                base + "/licenses/async-profiler/LICENSE", base + "/licenses/async-profiler/NOTICE"));
        Path checkout = CliProcess.jar().getParent().getParent().getParent();
        try (Stream<Path> pages = Files.list(checkout.resolve("docs"))) {
            pages.forEach(page -> expected.add(base + "/docs/" + page.getFileName()));
        }
        Result list = run(List.of("tar", "-tzf", archive.toString()), temp, "");
        assertEquals(0, list.exit(), list.toString());
        assertEquals(expected, new TreeSet<>(list.out().lines().filter(entry -> !entry.endsWith("/")).toList()));
    }

    @Test
    void theLicenseIsApache2AndTheNoticeNamesEveryBundledLibraryWithItsVersion() throws Exception {
        Path unpacked = unpack();
        assertEquals(Files.readString(Path.of("/usr/share/common-licenses/Apache-2.0")), Files.readString(unpacked.resolve("LICENSE")));
        String notice = Files.readString(unpacked.resolve("NOTICE"));
        List<String> bundled = new ArrayList<>(List.of("picocli " + CommandLine.VERSION));
        try (JarFile jar = new JarFile(unpacked.resolve("lib/jvmti-cli.jar").toFile())) {
            for (JarEntry entry : Collections.list(jar.entries())) {
                if (entry.getName().matches("META-INF/maven/[^/]+/[^/]+/pom\\.properties") && !entry.getName().contains("/dev.jvmticli/")) {
                    Properties pom = new Properties();
                    pom.load(jar.getInputStream(entry));
                    bundled.add(pom.getProperty("artifactId") + " " + pom.getProperty("version"));
                }
            }
        }
        assertTrue(bundled.size() > 5, bundled.toString());
        for (String library : bundled) {
            String[] nameAndVersion = library.split(" ");
            assertTrue(notice.contains(nameAndVersion[0]) && notice.contains(nameAndVersion[1]), library + " is not in NOTICE");
        }
    }

    @Test
    void runsFromAnotherDirectoryAndThroughASymlinkOnPath() throws Exception {
        Path launcher = unpack().resolve("bin/jvmti-cli");
        assertTrue(Files.isExecutable(launcher), launcher.toString());
        Path onPath = Files.createDirectory(temp.resolve("bin"));
        Files.createSymbolicLink(onPath.resolve("jvmti-cli"), launcher);
        Path elsewhere = Files.createDirectory(temp.resolve("elsewhere"));

        Result demo = run(List.of("bash", "-c", "jvmti-cli demo"), elsewhere, onPath.toString());
        assertEquals(0, demo.exit(), demo.toString());
        assertTrue(demo.out().contains("Started a demo JVM (pid "), demo.out());
        assertTrue(demo.out().contains("demo-busy"), demo.out());

        try (TargetJvm target = TargetJvm.start(Jdks.current(), CounterTarget.class)) {
            String pid = Long.toString(target.pid());
            for (List<String> command : List.of(List.of("bash", "-c", "jvmti-cli threads " + pid), List.of(launcher.toString(), "threads", pid))) {
                Result threads = run(command, elsewhere, onPath.toString());
                assertEquals(0, threads.exit(), command + ": " + threads);
                assertTrue(threads.out().contains(" counter\n"), threads.out());
            }
            // the release archive holds no CDS archive (the build's names the jar by its build path): the first run made one for this jar, the next uses it
            assertEquals(1, LauncherArchiveIT.archives(temp.resolve("cache/jvmti-cli")).size());
            String source = Launcher.mainClassSource(launcher, Jdks.current(), Map.of("XDG_CACHE_HOME", temp.resolve("cache").toString()),
                    temp.resolve("classes.log"), "threads", pid);
            assertTrue(Launcher.isArchive(source), source);
        }
    }

    /** The archive unpacked into a new directory of temp; returns its top directory. */
    private Path unpack() throws Exception {
        Path unpacked = Files.createDirectory(temp.resolve("unpacked"));
        assertEquals(0, run(List.of("tar", "-xzf", archive().toString(), "-C", unpacked.toString()), temp, "").exit());
        try (Stream<Path> dirs = Files.list(unpacked)) {
            return dirs.findFirst().orElseThrow();
        }
    }

    /** Runs command in dir with JAVA_HOME set to the tests' JDK, XDG_CACHE_HOME to temp/cache, and pathFirst (if any) ahead on PATH. */
    private Result run(List<String> command, Path dir, String pathFirst) throws Exception {
        ProcessBuilder builder = new ProcessBuilder(command).directory(dir.toFile());
        builder.environment().put("JAVA_HOME", Jdks.current().home().toString());
        builder.environment().put("XDG_CACHE_HOME", temp.resolve("cache").toString());
        if (!pathFirst.isEmpty()) {
            builder.environment().put("PATH", pathFirst + ":" + System.getenv("PATH"));
        }
        Process process = builder.start();
        CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> read(process.getInputStream()));
        CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> read(process.getErrorStream()));
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError(command + " did not finish in 60 s");
        }
        return new Result(process.exitValue(), out.get(), err.get());
    }

    private static String read(java.io.InputStream in) {
        try {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
