package dev.jvmticli.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jvmticli.targets.CounterTarget;
import dev.jvmticli.testing.CliRun.Result;
import dev.jvmticli.testing.Jdks;
import dev.jvmticli.testing.Jre;
import dev.jvmticli.testing.Launcher;
import dev.jvmticli.testing.OtherUser;
import dev.jvmticli.testing.TargetJvm;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The launcher gives the JVM that runs the CLI an archive made for it, a CDS archive or from JDK 25
 * on an AOT cache: on every installed JDK and on a jlink runtime, the first run makes one in the
 * user's cache directory (XDG_CACHE_HOME), printing only what the command prints, and the next
 * takes the CLI's classes from it; a cache directory that is a link, or that others can write, is
 * not used, and nothing is made under a HOME of another user; JVM options in the environment that choose class sharing themselves are respected.
 * (Other ways the launcher starts the CLI are tested here too.)
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LauncherArchiveIT {
    /** A line of the threads table: its header or a row. */
    private static final Pattern TABLE_LINE = Pattern.compile("^(ID  KIND|\\s*(\\d+|-)\\s+(java|vm)\\s)");

    @TempDir
    Path temp;

    private TargetJvm target;

    @BeforeAll
    void start() {
        target = TargetJvm.start(Jdks.current(), CounterTarget.class);
    }

    @AfterAll
    void stop() {
        target.close();
    }

    Stream<Jdks.Jdk> runtimes() {
        return Stream.concat(Jdks.stream(), Stream.of(Jre.get()));
    }

    @ParameterizedTest
    @MethodSource("runtimes")
    void theFirstRunMakesAnArchiveForItsJdkAndTheNextUsesIt(Jdks.Jdk jdk) throws IOException {
        Path cacheHome = Files.createDirectory(temp.resolve("cache-" + jdk.home().getFileName()));
        Map<String, String> environment = Map.of("XDG_CACHE_HOME", cacheHome.toString());
        Result first = Launcher.run(Launcher.script(), jdk, environment, "", "threads", pid());
        assertEquals(0, first.exit(), first.toString());
        assertTrue(first.out().contains(" counter\n"), first.out());
        assertTrue(first.out().lines().allMatch(TABLE_LINE.asPredicate()), "nothing but the table: " + first.out());
        assertEquals("", first.err());

        String kind = jdk.feature() >= 25 ? ".aot" : ".jsa";
        boolean builtHere = jdk.equals(Jdks.current()) && Files.exists(Launcher.root().resolve("cli/target/jvmti-cli" + kind));
        List<Path> made = archives(cacheHome.resolve("jvmti-cli"));
        assertEquals(builtHere ? 0 : 1, made.size(), "the JDK that built the jar uses the build's archive; any other gets its own: " + made);
        if (!builtHere) {
            assertTrue(made.get(0).toString().endsWith(kind), made.toString());
            assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(cacheHome.resolve("jvmti-cli"))));
        }
        String source = Launcher.mainClassSource(Launcher.script(), jdk, environment, temp.resolve("classes.log"), "threads", pid());
        assertTrue(Launcher.isArchive(source), source);
    }

    @ParameterizedTest
    @MethodSource("runtimes")
    void jvmOptionsThatChooseClassSharingThemselvesAreRespected(Jdks.Jdk jdk) throws IOException {
        Path cacheHome = Files.createDirectory(temp.resolve("options-" + jdk.home().getFileName()));
        for (String options : List.of("-Xshare:auto", "-Xshare:off")) {
            Map<String, String> environment = Map.of("XDG_CACHE_HOME", cacheHome.toString(), "JAVA_TOOL_OPTIONS", options);
            for (int run = 0; run < 2; run++) { // the first may make an archive, the second uses what there is
                Result result = Launcher.run(Launcher.script(), jdk, environment, "", "threads", pid());
                assertEquals(0, result.exit(), options + ": " + result);
                assertTrue(result.out().contains(" counter\n"), result.out());
                assertEquals("Picked up JAVA_TOOL_OPTIONS: " + options, result.err().strip());
            }
        }
    }

    /**
     * The launcher names the main class rather than run the jar (-jar), so the manifest's
     * Enable-Native-Access is its to give: a command that waits, its output a pipe, loads the
     * agent library into the CLI to poll the pipe, which JDK 24 and later would warn of.
     */
    @ParameterizedTest
    @MethodSource("runtimes")
    void theCliLoadsItsLibraryWithoutAWarning(Jdks.Jdk jdk) throws IOException {
        Path piped = temp.resolve("piped-" + jdk.home().getFileName());
        Files.writeString(piped, "#!/bin/bash\nset -o pipefail\n\"" + Launcher.script() + "\" \"$@\" | cat\n");
        Files.setPosixFilePermissions(piped, PosixFilePermissions.fromString("rwx------"));
        Result result = Launcher.run(piped, jdk, Map.of(), "", "contention", pid(), "--duration", "1");
        assertEquals(0, result.exit(), result.toString());
        assertTrue(result.out().contains("contended monitor enters"), result.out());
        assertEquals("", result.err());
    }

    @Test
    void aCacheDirectoryThatIsALinkOrThatOthersCanWriteIsNotUsed() throws IOException {
        Jdks.Jdk runtime = Jre.get(); // never the JDK that built the jar: the cache is its only archive
        Path elsewhere = Files.createDirectory(temp.resolve("elsewhere"));
        Path linked = Files.createDirectory(temp.resolve("linked"));
        Files.createSymbolicLink(linked.resolve("jvmti-cli"), elsewhere);
        Path open = Files.createDirectory(temp.resolve("open"));
        Files.createDirectory(open.resolve("jvmti-cli"));
        Files.setPosixFilePermissions(open.resolve("jvmti-cli"), PosixFilePermissions.fromString("rwxrwxrwx"));

        for (Path cacheHome : List.of(linked, open)) {
            Map<String, String> environment = Map.of("XDG_CACHE_HOME", cacheHome.toString());
            String source = Launcher.mainClassSource(Launcher.script(), runtime, environment, temp.resolve("classes.log"), "threads", pid());
            assertFalse(Launcher.isArchive(source), cacheHome + ": " + source);
            assertEquals(List.of(), archives(cacheHome.resolve("jvmti-cli")), cacheHome.toString());
        }
        assertEquals(List.of(), archives(elsewhere), "nothing is written through the link");
    }

    /** Issue 37: root with another user's HOME made ~/.cache/jvmti-cli there, root's, in her home (fails so on the old launcher). */
    @Test
    void rootWithAnotherUsersHomeMakesNothingThere() throws IOException {
        OtherUser.assume();
        Path home = Files.createDirectory(temp.resolve("home"));
        Files.setOwner(home, home.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName(OtherUser.NAME));
        Map<String, String> environment = Map.of("XDG_CACHE_HOME", "", "HOME", home.toString());
        String source = Launcher.mainClassSource(Launcher.script(), Jre.get(), environment, temp.resolve("classes.log"), "threads", pid());
        assertFalse(Launcher.isArchive(source), source);
        assertEquals(List.of(), archives(home), "nothing made in her home");
    }

    private String pid() {
        return Long.toString(target.pid());
    }

    /** Every file in dir (none when it does not exist). */
    static List<Path> archives(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(dir)) {
            return files.toList();
        }
    }
}
