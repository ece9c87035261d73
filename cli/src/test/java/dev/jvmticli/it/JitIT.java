package dev.jvmticli.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.jvmticli.targets.JitTarget;
import dev.jvmticli.testing.AgentMode;
import dev.jvmticli.testing.AgentProbe;
import dev.jvmticli.testing.CliRun;
import dev.jvmticli.testing.CliRun.Result;
import dev.jvmticli.testing.Jdks;
import dev.jvmticli.testing.Json;
import dev.jvmticli.testing.TargetJvm;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** `jit` and the perf map against a target with a known hot method, on every installed JDK; each test has its own target. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class JitIT {
    static final String CAPABILITY = "can_generate_compiled_method_load_events";
    static final String CLASS = "dev.jvmticli.targets.JitTarget";
    static final Pattern MAP_LINE = Pattern.compile("([0-9a-f]+) ([0-9a-f]+) (.+)");

    Stream<Jdks.Jdk> jdks() {
        return Jdks.stream();
    }

    /** Waits, with a deadline, until the JIT has compiled the method (the JIT works on its own time). */
    private static JsonNode awaitCompiled(TargetJvm target, String method) throws InterruptedException {
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (true) {
            Result result = CliRun.run("jit", Long.toString(target.pid()), "--json", "--class", CLASS, "--method", method);
            assertEquals(0, result.exit(), result.toString());
            JsonNode compiled = Json.parse(result.out()).path("compiled");
            if (compiled.size() > 0 || System.nanoTime() > deadline) {
                assertTrue(compiled.size() > 0, method + " never compiled");
                return compiled;
            }
            Thread.sleep(200);
        }
    }

    /** Waits, with a deadline, until some compiled code of the method passes the check. */
    private static JsonNode awaitCode(TargetJvm target, String method, java.util.function.Predicate<JsonNode> check) throws InterruptedException {
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (true) {
            for (JsonNode c : awaitCompiled(target, method)) {
                if (check.test(c)) {
                    return c;
                }
            }
            assertTrue(System.nanoTime() < deadline, method + ": no such code within 60 s");
            Thread.sleep(200);
        }
    }

    private static List<String[]> mapLines(Path map) throws IOException {
        List<String[]> lines = new ArrayList<>();
        for (String line : Files.readAllLines(map)) {
            Matcher m = MAP_LINE.matcher(line);
            assertTrue(m.matches(), "perf map line: " + line);
            lines.add(new String[] {m.group(1), m.group(2), m.group(3)});
        }
        return lines;
    }

    @ParameterizedTest
    @MethodSource("jdks")
    void theHotMethodIsListedWithItsInlinedCalleeAndInThePerfMap(Jdks.Jdk jdk) throws Exception {
        try (TargetJvm target = TargetJvm.start(jdk, JitTarget.class)) {
            JsonNode hot = awaitCompiled(target, "hot");
            boolean inlinesSquare = false;
            for (JsonNode c : hot) {
                assertEquals(CLASS, c.path("className").asText());
                assertEquals("(I)J", c.path("signature").asText());
                long start = c.path("start").asLong();
                long size = c.path("size").asLong();
                assertTrue(start > 0 && size > 0 && size < 1 << 20, c.toString());
                assertEquals(start + size, c.path("end").asLong());
                inlinesSquare |= Json.texts(c.path("inlined")).contains(CLASS + ".square(I)I");
            }
            assertTrue(inlinesSquare, "square inlined into hot: " + hot);
            assertFalse(AgentProbe.capabilities(target.pid()).contains(CAPABILITY), "relinquished after the listing");

            Path map = Path.of("/tmp/perf-" + target.pid() + ".map");
            try {
                Result result = CliRun.run("jit", Long.toString(target.pid()), "--perf-map", "--method", "hot");
                assertEquals(0, result.exit(), result.toString());
                assertTrue(result.out().endsWith("perf map: " + map + "\n"), result.out());
                assertEquals("rw-r--r--", PosixFilePermissions.toString(Files.getPosixFilePermissions(map, LinkOption.NOFOLLOW_LINKS)));
                assertEquals(Files.getAttribute(Path.of("/proc/self"), "unix:uid"), Files.getAttribute(map, "unix:uid", LinkOption.NOFOLLOW_LINKS));
                List<String[]> lines = mapLines(map);
                assertTrue(lines.size() > 50, "stubs and compiled methods: " + lines.size());
                boolean found = false;
                for (String[] line : lines) {
                    if (line[2].equals(CLASS + "::hot")) {
                        long start = Long.parseUnsignedLong(line[0], 16);
                        long size = Long.parseLong(line[1], 16);
                        assertTrue(start > 0 && size > 0, String.join(" ", line));
                        found = true;
                    }
                }
                assertTrue(found, "hot in the perf map");
                assertTrue(lines.stream().anyMatch(l -> l[2].equals("Interpreter")), "the interpreter is a generated stub");

                Result alone = CliRun.run("jit", Long.toString(target.pid()), "--perf-map");
                assertEquals(0, alone.exit(), alone.toString());
                List<String> said = alone.out().lines().toList();
                assertEquals(2, said.size(), "--perf-map alone: the counts and the map, not the table: " + alone.out());
                assertTrue(said.get(0).matches("\\d+ pieces of compiled code .*, \\d+ stubs"), alone.out());
                assertEquals("perf map: " + map, said.get(1));
            } finally {
                Files.deleteIfExists(map);
            }
        }
    }

    @ParameterizedTest
    @MethodSource("jdks")
    void eachPieceOfCodeSaysItsTierAndWhetherItIsAnOsrEntry(Jdks.Jdk jdk) throws Exception {
        // every tier, not the test targets' C1 only: the hot method reaches C2
        try (TargetJvm target = TargetJvm.start(jdk, JitTarget.class, List.of("-XX:TieredStopAtLevel=4"))) {
            // hot has OSR code too (its loop runs long before its calls count up): its normal entry at C2
            JsonNode c2 = awaitCode(target, "hot", c -> c.path("tier").asInt() == 4 && c.path("osr").isBoolean() && !c.path("osr").asBoolean());
            assertTrue(c2.path("osrBci").isNull(), c2.toString());
            assertTrue(c2.path("compileId").asInt() > 0, c2.toString());
            JsonNode osr = awaitCode(target, "osrLoop", c -> c.path("osr").asBoolean(false));
            int tier = osr.path("tier").asInt();
            assertTrue(tier >= 1 && tier <= 4, osr.toString());
            assertTrue(osr.path("osrBci").asInt() > 0, "the loop's back branch is past the method's start: " + osr);

            Result table = CliRun.run("jit", Long.toString(target.pid()), "--class", CLASS);
            assertEquals(0, table.exit(), table.toString());
            List<String> lines = table.out().lines().toList();
            assertTrue(lines.get(0).matches("START +END +SIZE +TIER +OSR +INLINED +METHOD"), table.out());
            assertTrue(lines.stream().anyMatch(l -> l.matches("0x\\p{XDigit}+ +0x\\p{XDigit}+ +\\d+ +4 C2 +- +\\d+ +" + Pattern.quote(CLASS + ".hot(I)J"))),
                    table.out());
            assertTrue(lines.stream().anyMatch(l -> l.matches(".* [1-4] C[12] +@" + osr.path("osrBci").asInt() + " +\\d+ +" + Pattern.quote(CLASS + ".osrLoop()V"))),
                    table.out());
            int hot = lines.indexOf(lines.stream().filter(l -> l.endsWith(CLASS + ".hot(I)J") && l.contains(" 4 C2 ")).findFirst().orElseThrow());
            assertEquals("    inlines " + CLASS + ".square(I)I", lines.get(hot + 1), "the inlined methods follow, one a line: " + table.out());
            long rows = lines.stream().filter(l -> l.startsWith("0x")).count();
            assertTrue(lines.get(lines.size() - 1).startsWith(rows + " of the JVM's "), "how many of how many match: " + table.out());
            assertTrue(table.out().matches("(?s).*\\d+ of the JVM's \\d+ pieces of compiled code and 0 of its \\d+ stubs match\n"), table.out());
        }
    }

    @ParameterizedTest
    @MethodSource("jdks")
    void withoutAnAttachListenerTheTierIsUnknownAndTheListingSaysWhy(Jdks.Jdk jdk) throws Exception {
        // loaded at start-up and never attached to: the JVM has not started its attach listener
        try (TargetJvm target = TargetJvm.start(jdk, JitTarget.class, AgentMode.STARTUP.jvmOptions())) {
            JsonNode hot = awaitCompiled(target, "hot");
            assertTrue(hot.get(0).path("tier").isNull() && hot.get(0).path("osr").isNull(), hot.toString());
            Result table = CliRun.run("jit", Long.toString(target.pid()), "--method", "hot");
            assertTrue(table.out().lines().anyMatch(l -> l.matches("0x.* \\? +\\? +\\d+ +" + Pattern.quote(CLASS + ".hot(I)J"))), table.out());
            assertTrue(table.out().contains("tier and OSR unknown (?): the JVM's attach listener (/tmp/.java_pid" + target.pid() + ") is not running: nothing attached to this JVM yet"
                    + " (any attach starts it, e.g. jcmd <pid> VM.version)\n"), table.out());

            // the line's way out is true: once jcmd started the listener, the same agent gets the tiers
            Process jcmd = new ProcessBuilder(jdk.home().resolve("bin/jcmd").toString(), Long.toString(target.pid()), "VM.version")
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            assertEquals(0, jcmd.waitFor());
            Result known = CliRun.run("jit", Long.toString(target.pid()), "--method", "hot");
            assertTrue(known.out().lines().anyMatch(l -> l.matches("0x.* [1-4] C[12] +(-|@\\d+) +\\d+ +" + Pattern.quote(CLASS + ".hot(I)J"))), known.out());
            assertFalse(known.out().contains("tier and OSR unknown"), known.out());
        }
    }

    @ParameterizedTest
    @MethodSource("jdks")
    void followKeepsTheMapCurrentUntilDetach(Jdks.Jdk jdk) throws Exception {
        try (TargetJvm target = TargetJvm.start(jdk, JitTarget.class)) {
            String pid = Long.toString(target.pid());
            Path map = Path.of("/tmp/perf-" + pid + ".map");
            try {
                Result follow = CliRun.run("jit", pid, "--perf-map", "--follow", "--method", "late");
                assertEquals(0, follow.exit(), follow.toString());
                assertTrue(follow.out().contains("kept current until `jvmti-cli detach " + pid + "`"), follow.out());
                assertTrue(AgentProbe.capabilities(target.pid()).contains(CAPABILITY), "held while following");
                assertFalse(Files.readString(map).contains(CLASS + "::late"), "late has not run yet");

                assertEquals("started", target.ask("late"));
                long deadline = System.nanoTime() + 60_000_000_000L;
                while (!Files.readString(map).contains(CLASS + "::late") && System.nanoTime() < deadline) {
                    Thread.sleep(100);
                }
                assertTrue(Files.readString(map).contains(CLASS + "::late"), "late appended while following");
                mapLines(map);

                Result detach = CliRun.run("detach", pid);
                assertEquals(0, detach.exit(), detach.toString());
                mapLines(map);
            } finally {
                Files.deleteIfExists(map);
            }
        }
    }

    @ParameterizedTest
    @MethodSource("jdks")
    void aPlantedLinkIsRefusedAndLeftAlone(Jdks.Jdk jdk) throws Exception {
        try (TargetJvm target = TargetJvm.start(jdk, JitTarget.class)) {
            Path map = Path.of("/tmp/perf-" + target.pid() + ".map");
            Path victim = Files.createTempFile("jvmti-cli-victim", ".txt");
            try {
                Files.writeString(victim, "precious\n");
                Files.createSymbolicLink(map, victim);
                Result result = CliRun.run("jit", Long.toString(target.pid()), "--perf-map");
                assertEquals(1, result.exit(), result.toString());
                assertTrue(result.err().contains("refusing to replace " + map + ": it is a symbolic link"), result.err());
                assertTrue(Files.isSymbolicLink(map));
                assertEquals("precious\n", Files.readString(victim));
                assertFalse(AgentProbe.capabilities(target.pid()).contains(CAPABILITY));
            } finally {
                Files.deleteIfExists(map);
                Files.deleteIfExists(victim);
            }
        }
    }

    @Test
    void followNeedsThePerfMap() {
        Result result = CliRun.run("jit", "1", "--follow");
        assertEquals(2, result.exit(), result.toString());
        assertTrue(result.err().contains("--follow keeps the perf map current: use it with --perf-map"), result.err());
    }
}
