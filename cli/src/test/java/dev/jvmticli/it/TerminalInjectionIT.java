package dev.jvmticli.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.jvmticli.targets.HostileNamesTarget;
import dev.jvmticli.testing.CliProcess;
import dev.jvmticli.testing.CliRun.Result;
import dev.jvmticli.testing.ControlCharacters;
import dev.jvmticli.testing.Jdks;
import dev.jvmticli.testing.Json;
import dev.jvmticli.testing.TargetJvm;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Terminal injection: a target whose thread names, lock class and jar name hold control
 * characters (see {@link HostileNamesTarget}). Every text output of the CLI, run as a process so
 * that its real standard output is read, shows them escaped and holds no raw control byte but
 * the line ends and the tab that starts jstack's frame and lock lines; JSON keeps the names exact
 * (and escapes the C1 controls it would leave raw).
 */
class TerminalInjectionIT {
    /** The jar's file name: ESC sequences, BEL, CR, C1's NEL, a table's |, a tab and a newline. */
    private static final String JAR = "evil\u001b[31m\u0007\r\u0085|tab\tnew\nline.jar";
    private static final String JAR_SHOWN = "evil\\e[31m\\a\\r\\u{0085}|tab\\tnew\\nline.jar";
    private static final String FORGING_SHOWN = "forge\\n\"main\" #1 prio=5 os_prio=0 tid=0x1 nid=0x1 runnable\\n\\tat fake.Frame.run(Fake.java:1)"
            + "\\r| cell | tab\\there back\\\\slash del\\x7f nul\\0";
    private static final String TERMINAL_SHOWN = "term\\e[31mred\\e[2J\\e]0;owned\\a c1\\u{009b}31m\\u{0085}end";
    private static final String LOCK_CLASS_SHOWN = "dev.jvmticli.targets.Lock\\ec\\u{009b}2J\\nClass";

    static Stream<Jdks.Jdk> jdks() {
        return Jdks.stream();
    }

    @ParameterizedTest
    @MethodSource("jdks")
    void everyTextOutputShowsControlCharactersEscaped(Jdks.Jdk jdk) throws Exception {
        Path directory = Files.createTempDirectory("jvmti-cli-hostile");
        Path jar = launcherJar(directory.resolve(JAR));
        try (TargetJvm target = TargetJvm.start(jdk, HostileNamesTarget.class, List.of("-jar", jar.toString()))) {
            String pid = Long.toString(target.pid());

            Result list = cli(jdk, 0, "list");
            assertTrue(list.out().lines().anyMatch(l -> l.trim().startsWith(pid + " ") && l.endsWith(directory + "/" + JAR_SHOWN)), list.out());

            for (String[] command : List.of(new String[] {"threads", pid}, new String[] {"stacks", pid}, new String[] {"stacks", "-l", pid},
                    new String[] {"stacks", "--group", pid}, new String[] {"monitors", pid}, new String[] {"monitors", "--by-lock", pid})) {
                Result result = cli(jdk, 0, command);
                assertTrue(result.out().contains(FORGING_SHOWN) && result.out().contains(TERMINAL_SHOWN), result.toString());
            }
            for (String[] command : List.of(new String[] {"stacks", pid}, new String[] {"monitors", pid}, new String[] {"deadlocks", pid})) {
                Result result = cli(jdk, command[0].equals("deadlocks") ? 10 : 0, command);
                assertTrue(result.out().contains(LOCK_CLASS_SHOWN), result.toString());
            }
            Result deadlocks = cli(jdk, 10, "deadlocks", pid);
            assertTrue(deadlocks.out().contains("\"" + FORGING_SHOWN + "\":") && deadlocks.out().contains("\"" + TERMINAL_SHOWN + "\":"),
                    deadlocks.out());

            Result shell = cli(jdk, 10, "shell", pid, "-c", "threads; stacks; monitors --by-lock; deadlocks");
            assertTrue(shell.out().contains(FORGING_SHOWN) && shell.out().contains(TERMINAL_SHOWN), shell.toString());

            Path out = directory.resolve("dump");
            Result dump = cli(jdk, 0, "dump", pid, "--out", out.toString());
            List<Path> files;
            try (Stream<Path> walk = Files.walk(out)) {
                files = walk.filter(Files::isRegularFile).toList();
            }
            for (Path file : files) {
                String text = Files.readString(file);
                assertEquals(null, ControlCharacters.firstRaw(text), file + " holds a raw control character:\n" + text);
                if (file.getFileName().toString().endsWith(".json")) {
                    Json.parse(text);
                }
            }
            String summary = Files.readString(out.resolve("summary.md"));
            assertTrue(summary.contains(TERMINAL_SHOWN), summary);
            assertTrue(summary.contains("`" + FORGING_SHOWN.replace("|", "\\|") + "`"), "a | of a name cannot end a table cell:\n" + summary);
            assertTrue(files.stream().anyMatch(f -> f.getFileName().toString().endsWith(".txt")), dump + "\n" + files);

            Result json = cli(jdk, 0, "threads", pid, "--json");
            JsonNode threads = Json.parse(json.out()).path("threads");
            List<String> names = new ArrayList<>();
            threads.forEach(t -> names.add(t.path("name").asText()));
            assertTrue(names.contains(HostileNamesTarget.FORGING) && names.contains(HostileNamesTarget.TERMINAL), "JSON names are exact: " + names);
        } finally {
            try (Stream<Path> walk = Files.walk(directory)) {
                for (Path path : walk.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(path);
                }
            }
        }
    }

    /** Runs the CLI as a process, expects the exit code and stdout free of raw control characters. */
    private static Result cli(Jdks.Jdk jdk, int exit, String... args) {
        Result result = CliProcess.run(jdk, args);
        assertEquals(exit, result.exit(), result.toString());
        assertEquals(null, ControlCharacters.firstRaw(result.out()), String.join(" ", args) + " printed a raw control character:\n" + result.out());
        assertEquals(null, ControlCharacters.firstRaw(result.err()), String.join(" ", args) + " printed a raw control character on stderr:\n" + result.err());
        return result;
    }

    /** A jar of nothing but a manifest that starts the target from the test classes. */
    private static Path launcherJar(Path jar) throws IOException {
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().put(Attributes.Name.MAIN_CLASS, HostileNamesTarget.class.getName());
        Path classes = TargetJvm.testClasses();
        manifest.getMainAttributes().put(Attributes.Name.CLASS_PATH, classes.toUri().toString());
        try (OutputStream file = Files.newOutputStream(jar); JarOutputStream out = new JarOutputStream(file, manifest)) {
            out.flush();
        }
        return jar;
    }
}
