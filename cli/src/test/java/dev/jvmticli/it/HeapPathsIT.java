package dev.jvmticli.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.jvmticli.client.AgentClient;
import dev.jvmticli.client.AgentError;
import dev.jvmticli.client.HeapPathsAnswer;
import dev.jvmticli.client.HeapPathsRequest;
import dev.jvmticli.targets.PathsTarget;
import dev.jvmticli.testing.CliRun;
import dev.jvmticli.testing.CliRun.Result;
import dev.jvmticli.testing.Jdks;
import dev.jvmticli.testing.Json;
import dev.jvmticli.testing.RawAgentSocket;
import dev.jvmticli.testing.TargetJvm;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * `heap --paths` against a target that holds instances of one class per kind of root, and knows
 * how many: each class's instances on one path from the root that holds them, named, with the
 * fields on the way as the target declares them; the garbage class on none.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HeapPathsIT {
    static final String TARGET = "dev.jvmticli.targets.PathsTarget";
    Path work;
    Path library;

    Stream<Jdks.Jdk> jdks() {
        return Jdks.stream();
    }

    @BeforeAll
    void buildTheNativeLibrary() throws IOException, InterruptedException {
        work = Files.createTempDirectory("heap-paths");
        Path source = work.resolve("globalref.c");
        try (InputStream in = HeapPathsIT.class.getResourceAsStream("/paths/globalref.c")) {
            Files.copy(in, source);
        }
        library = work.resolve("libglobalref.so");
        Path include = Jdks.current().home().resolve("include");
        Process gcc = new ProcessBuilder("gcc", "-shared", "-fPIC", "-O1", "-I" + include, "-I" + include.resolve("linux"), "-o", library.toString(),
                source.toString()).redirectErrorStream(true).start();
        String out = new String(gcc.getInputStream().readAllBytes());
        assertEquals(0, gcc.waitFor(), "gcc: " + out);
    }

    @AfterAll
    void removeIt() throws IOException {
        try (Stream<Path> files = Files.walk(work)) {
            for (Path p : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    @ParameterizedTest
    @MethodSource("jdks")
    void eachLeakIsOnOnePathFromTheRootThatHoldsIt(Jdks.Jdk jdk) throws Exception {
        try (TargetJvm target = TargetJvm.start(jdk, PathsTarget.class, List.of("-Xmx256m"), library.toString())) {
            Map<String, Long> counts = counts(target.ask("counts"));

            JsonNode statics = paths(target, "$ByStatic");
            JsonNode path = onlyPath(statics, counts.get("static"));
            assertRoot(path, "staticField", TARGET, "CACHE");
            assertEquals(List.of("java.util.HashMap", "table", "[]", "value"), steps(path), path.toString());
            long keeps = path.path("root").path("keepsBytes").asLong();
            // each ByStatic holds a byte[1024]: the map keeps at least those, and less than twice them with its nodes and keys
            assertTrue(keeps >= counts.get("static") * 1040 && keeps < counts.get("static") * 2080, "keepsBytes " + keeps);

            path = onlyPath(paths(target, "$ByListener"), counts.get("listeners"));
            assertRoot(path, "staticField", TARGET, "BUS");
            assertEquals(List.of(TARGET + "$EventBus", "listeners", "elementData", "[]"), steps(path), path.toString());

            path = onlyPath(paths(target, "$ByThreadLocal"), counts.get("threadLocal"));
            assertEquals("thread", path.path("root").path("kind").asText(), path.toString());
            assertEquals("session-worker", path.path("root").path("thread").asText(), path.toString());
            assertEquals(List.of("java.lang.Thread", "threadLocals", "table", "[]", "value"), steps(path).subList(0, 5), path.toString());

            path = onlyPath(paths(target, "$ByLocal"), counts.get("local"));
            JsonNode root = path.path("root");
            assertEquals("stackLocal", root.path("kind").asText(), path.toString());
            assertEquals("request-handler", root.path("thread").asText(), path.toString());
            assertEquals(TARGET, root.path("frame").path("class").asText(), path.toString());
            assertEquals("holdInLocal", root.path("frame").path("method").asText(), path.toString());

            path = onlyPath(paths(target, "$ByJniGlobal"), counts.get("jniGlobals"));
            assertEquals("jniGlobal", path.path("root").path("kind").asText(), path.toString());
            assertEquals(1, path.path("length").asLong(), "the global reference holds each instance itself: " + path);

            JsonNode dropped = paths(target, "$Dropped");
            assertEquals(0, dropped.path("instances").asLong(), dropped.toString());
            assertEquals(0, dropped.path("paths").size(), dropped.toString());

            Result text = CliRun.run("heap", Long.toString(target.pid()), "--paths", TARGET + "$ByStatic");
            assertEquals(0, text.exit(), text.toString());
            assertTrue(text.out().contains(counts.get("static") + " instances: static field " + TARGET + ".CACHE, which keeps about "), text.out());
            assertTrue(text.out().contains("\n  java.util.HashMap.table[]\n  java.util.HashMap$Node.value\n  -> " + TARGET + "$ByStatic\n"), text.out());
            assertTrue(text.out().contains("target paused"), text.out());
        }
    }

    /** G1, Parallel and Shenandoah on every JDK that has them, ZGC from JDK 21. */
    Stream<Arguments> collectors() {
        return Jdks.stream().flatMap(jdk -> Stream.of("-XX:+UseG1GC", "-XX:+UseParallelGC", "-XX:+UseZGC", "-XX:+UseShenandoahGC")
                .filter(gc -> !gc.equals("-XX:+UseZGC") || jdk.feature() >= 21)
                .filter(gc -> !gc.equals("-XX:+UseShenandoahGC") || hasShenandoah(jdk))
                .map(gc -> Arguments.of(jdk, gc)));
    }

    /** On every collector, the static map's path, and the walk's pause the one the target logged (HeapWalkOperation, a safepoint). */
    @ParameterizedTest
    @MethodSource("collectors")
    void everyCollectorGivesThePathAndThePauseTheJvmLogged(Jdks.Jdk jdk, String collector) throws Exception {
        Path log = Files.createTempFile("heap-paths-safepoints", ".log");
        try (TargetJvm target = TargetJvm.start(jdk, PathsTarget.class, List.of(collector, "-Xmx256m", "-Xlog:safepoint:file=" + log), library.toString())) {
            long held = counts(target.ask("counts")).get("static");
            JsonNode doc = paths(target, "$ByStatic");
            assertRoot(onlyPath(doc, held), "staticField", TARGET, "CACHE");
            HeapIT.assertPauseIsTheLogged(log, "HeapWalkOperation", doc.path("safepoints"));
        } finally {
            Files.deleteIfExists(log);
        }
    }

    static boolean hasShenandoah(Jdks.Jdk jdk) {
        try {
            Process p = new ProcessBuilder(jdk.java().toString(), "-XX:+UseShenandoahGC", "-version").redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor() == 0;
        } catch (IOException | InterruptedException e) {
            return false;
        }
    }

    /** --max-objects below what the heap holds: one line, exit 1, and the agent still answers. */
    @ParameterizedTest
    @MethodSource("jdks")
    void aHeapPastTheBoundIsRefused(Jdks.Jdk jdk) throws Exception {
        try (TargetJvm target = TargetJvm.start(jdk, PathsTarget.class, List.of("-Xmx256m"), library.toString())) {
            Result refused = CliRun.run("heap", Long.toString(target.pid()), "--paths", TARGET + "$ByStatic", "--max-objects", "10000");
            assertEquals(1, refused.exit(), refused.toString());
            assertTrue(refused.err().contains("more than 10000 objects"), refused.err());
            assertEquals(1, refused.err().lines().count(), refused.err());
            Result missing = CliRun.run("heap", Long.toString(target.pid()), "--paths", "no.such.Klass");
            assertEquals(1, missing.exit(), missing.toString());
            assertTrue(missing.err().contains("no loaded class is named no.such.Klass"), missing.err());
            onlyPath(paths(target, "$ByJniGlobal"), counts(target.ask("counts")).get("jniGlobals"));
        }
    }

    /**
     * heap.paths asked about several classes (as dump --heap asks): each answered apart from one
     * walk, as the target counts them, a name no class has answered as not loaded; a name twice refused.
     */
    @ParameterizedTest
    @MethodSource("jdks")
    void severalClassesAreAnsweredEachApartFromOneWalk(Jdks.Jdk jdk) throws Exception {
        try (TargetJvm target = TargetJvm.start(jdk, PathsTarget.class, List.of("-Xmx256m"), library.toString())) {
            assertEquals(0, CliRun.run("threads", Long.toString(target.pid())).exit(), "the agent is resident");
            Map<String, Long> counts = counts(target.ask("counts"));
            try (AgentClient client = AgentClient.connect(RawAgentSocket.socketPath(target.pid()), Duration.ofSeconds(60), "target")) {
                HeapPathsAnswer answer = client.call(new HeapPathsRequest(List.of(TARGET + "$ByStatic", "no.such.Klass", TARGET + "$ByListener"), 10, 30,
                        1_000_000), HeapPathsAnswer.class, Duration.ofSeconds(60));
                assertTrue(answer.safepoints().count() >= 1, "the walk is a safepoint: " + answer);
                assertEquals(List.of(TARGET + "$ByStatic", "no.such.Klass", TARGET + "$ByListener"),
                        answer.classes().stream().map(HeapPathsAnswer.ClassPaths::className).toList(), answer.toString());
                HeapPathsAnswer.ClassPaths byStatic = answer.classes().get(0);
                assertEquals((long) counts.get("static"), byStatic.instances(), byStatic.toString());
                assertEquals(1, byStatic.pathCount(), byStatic.toString());
                assertEquals("CACHE", byStatic.paths().get(0).root().field(), byStatic.toString());
                HeapPathsAnswer.ClassPaths missing = answer.classes().get(1);
                assertTrue(!missing.loaded() && missing.instances() == 0 && missing.paths().isEmpty(), missing.toString());
                HeapPathsAnswer.ClassPaths byListener = answer.classes().get(2);
                assertEquals((long) counts.get("listeners"), byListener.instances(), byListener.toString());
                assertEquals(1, byListener.pathCount(), byListener.toString());
                assertEquals("BUS", byListener.paths().get(0).root().field(), byListener.toString());

                AgentError twice = assertThrows(AgentError.class, () -> client.call(new HeapPathsRequest(List.of("a.B", "a.B"), 10, 30, 1_000_000),
                        HeapPathsAnswer.class, Duration.ofSeconds(60)));
                assertEquals("bad_request", twice.code(), twice.toString());
            }
        }
    }

    static JsonNode paths(TargetJvm target, String nested) {
        Result result = CliRun.run("heap", Long.toString(target.pid()), "--paths", TARGET + nested, "--json");
        assertEquals(0, result.exit(), result.toString());
        JsonNode doc = Json.parse(result.out());
        assertTrue(doc.path("safepoints").path("count").asLong() >= 1, "the walk is a safepoint: " + doc);
        return doc;
    }

    static JsonNode onlyPath(JsonNode doc, long expected) {
        assertEquals(expected, doc.path("instances").asLong(), doc.toString());
        assertEquals(1, doc.path("pathCount").asLong(), doc.toString());
        JsonNode path = doc.path("paths").get(0);
        assertEquals(expected, path.path("instances").asLong(), doc.toString());
        return path;
    }

    static void assertRoot(JsonNode path, String kind, String className, String field) {
        JsonNode root = path.path("root");
        assertEquals(kind, root.path("kind").asText(), path.toString());
        assertEquals(className, root.path("class").asText(), path.toString());
        assertEquals(field, root.path("field").asText(), path.toString());
    }

    /** The path's first class, then each field name or "[]" for an array element. */
    static List<String> steps(JsonNode path) {
        List<String> steps = new ArrayList<>();
        for (JsonNode step : path.path("steps")) {
            if (steps.isEmpty()) {
                steps.add(step.path("class").asText());
            } else if (step.path("arrayIndex").isNumber()) {
                steps.add("[]");
            } else {
                steps.add(step.path("field").asText());
            }
        }
        return steps;
    }

    static Map<String, Long> counts(String line) {
        Map<String, Long> counts = new HashMap<>();
        for (String pair : line.split(" ")) {
            String[] kv = pair.split("=");
            counts.put(kv[0], Long.parseLong(kv[1]));
        }
        return counts;
    }
}
