package dev.jvmticli.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.jvmticli.targets.LeakTarget;
import dev.jvmticli.testing.AgentMode;
import dev.jvmticli.testing.CliRun;
import dev.jvmticli.testing.CliRun.Result;
import dev.jvmticli.testing.Jdks;
import dev.jvmticli.testing.Json;
import dev.jvmticli.testing.TargetJvm;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** `heap` against a target that leaks one class next to 100 times its bytes of garbage, on every installed JDK and collector. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HeapIT {
    static final String LEAKED = "dev.jvmticli.targets.LeakTarget$Leaked";
    static final Pattern SAFEPOINT = Pattern.compile("Safepoint \"(\\w+)\".* Total: (\\d+) ns");

    Stream<Jdks.Jdk> jdks() {
        return Jdks.stream();
    }

    /** G1 and Parallel on every JDK, and ZGC from JDK 21 (its histogram GC is a concurrent cycle with pauses of its own). */
    Stream<Arguments> collectors() {
        return Jdks.stream().flatMap(jdk -> Stream.of("-XX:+UseG1GC", "-XX:+UseParallelGC", "-XX:+UseZGC")
                .filter(gc -> !gc.equals("-XX:+UseZGC") || jdk.feature() >= 21)
                .map(gc -> Arguments.of(jdk, gc)));
    }

    @ParameterizedTest
    @MethodSource("jdks")
    void growthOfLiveObjectsPutsTheLeakingClassFirst(Jdks.Jdk jdk) throws Exception {
        try (TargetJvm target = TargetJvm.start(jdk, LeakTarget.class)) {
            long before = Long.parseLong(target.ask("leaked"));
            Result result = CliRun.run("heap", Long.toString(target.pid()), "--live", "--count", "3", "--interval", "2s", "--json");
            long after = Long.parseLong(target.ask("leaked"));
            assertEquals(0, result.exit(), result.toString());
            JsonNode doc = Json.parse(result.out());
            JsonNode first = doc.path("growth").get(0);
            assertEquals(LEAKED, first.path("className").asText(), result.out());
            JsonNode instances = first.path("instances");
            assertEquals(3, instances.size());
            assertTrue(instances.get(0).asLong() >= before && instances.get(2).asLong() <= after,
                    "the map held " + before + " before and " + after + " after; the histograms say " + instances);
            assertTrue(instances.get(0).asLong() < instances.get(1).asLong() && instances.get(1).asLong() < instances.get(2).asLong(), instances.toString());
            for (JsonNode histogram : doc.path("histograms")) {
                assertTrue(histogram.path("safepoints").path("count").asLong() >= 1, "a full GC and a walk each: " + histogram);
            }
        }
    }

    Stream<Jdks.Jdk> jdksWithFillerClasses() {
        return Jdks.stream().filter(jdk -> jdk.feature() >= 21);
    }

    /**
     * G1 formats the unused end of each thread's TLAB as a filler array when the histogram's safepoint
     * retires it: the churning thread's TLAB always has one. jcmd's own histogram of all objects, taken
     * first, shows it; `heap` counts it apart from the objects, never as a class.
     */
    @ParameterizedTest
    @MethodSource("jdksWithFillerClasses")
    void theGcsFillerArraysAreCountedApartNotRankedAsAClass(Jdks.Jdk jdk) throws Exception {
        try (TargetJvm target = TargetJvm.start(jdk, LeakTarget.class, List.of("-XX:+UseG1GC"))) {
            String pid = Long.toString(target.pid());
            Process jcmd = new ProcessBuilder(jdk.home().resolve("bin/jcmd").toString(), pid, "GC.class_histogram", "-all")
                    .redirectErrorStream(true).start();
            String jcmdHistogram = new String(jcmd.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            assertEquals(0, jcmd.waitFor(), jcmdHistogram);
            assertTrue(jcmdHistogram.contains(" [Ljdk.internal.vm.FillerElement; (java.base@"), "jcmd's histogram has G1's fillers:\n" + jcmdHistogram);

            Result text = CliRun.run("heap", pid, "--top", "400");
            assertEquals(0, text.exit(), text.toString());
            assertFalse(text.out().contains("jdk.internal.vm.Filler"), text.out());
            assertTrue(Pattern.compile("(?m)^GC fillers \\(dead space the GC formats, not objects; left out above\\): \\d+ fillers?, \\d")
                    .matcher(text.out()).find(), text.out());

            JsonNode round = Json.parse(CliRun.run("heap", pid, "--top", "400", "--json").out()).path("histograms").get(0);
            assertTrue(round.path("filler").path("instances").asLong() >= 1 && round.path("filler").path("bytes").asLong() > 0, round.path("filler").toString());
            round.path("classes").forEach(c -> assertFalse(c.path("className").asText().contains("jdk.internal.vm.Filler"), c.toString()));
        }
    }

    /** Without --live each histogram waits for a young GC of the target's own (every second or so in 8 MB of young generation). */
    @ParameterizedTest
    @MethodSource("jdks")
    void growthOfAllObjectsRightAfterGcsPutsTheLeakingClassFirst(Jdks.Jdk jdk) throws Exception {
        try (TargetJvm target = TargetJvm.start(jdk, LeakTarget.class, List.of("-XX:+UseG1GC", "-Xmx64m", "-Xmn8m"))) {
            Result result = CliRun.run("heap", Long.toString(target.pid()), "--count", "3", "--interval", "2s", "--json");
            assertEquals(0, result.exit(), result.toString());
            JsonNode doc = Json.parse(result.out());
            assertEquals(LEAKED, doc.path("growth").get(0).path("className").asText(), result.out());
            for (JsonNode histogram : doc.path("histograms")) {
                assertTrue(histogram.path("afterGc").path("gcCame").asBoolean(), "each right after a GC: " + histogram.path("afterGc"));
            }
            assertEquals("all objects, each histogram right after a GC pause of the target's own", doc.path("growthOf").asText());
        }
    }

    @ParameterizedTest
    @MethodSource("jdks")
    void allObjectsCountsTheLeakExactlyAndPrintsATable(Jdks.Jdk jdk) throws Exception {
        try (TargetJvm target = TargetJvm.start(jdk, LeakTarget.class)) {
            long before = Long.parseLong(target.ask("leaked"));
            Result result = CliRun.run("heap", Long.toString(target.pid()), "--top", "400");
            long after = Long.parseLong(target.ask("leaked"));
            assertEquals(0, result.exit(), result.toString());
            Matcher row = Pattern.compile("(?m)^\\s*(\\d+)\\s+(\\d+)\\s+" + Pattern.quote(LEAKED) + "$").matcher(result.out());
            assertTrue(row.find(), result.out());
            long instances = Long.parseLong(row.group(1));
            assertTrue(instances >= before && instances <= after, before + " <= " + instances + " <= " + after);
            assertTrue(result.out().contains("histogram, no GC: target paused "), result.out());
        }
    }

    /** The GC a histogram waited for ends right before it: its pause is the target's own, reported apart, never the histogram's. */
    @ParameterizedTest
    @MethodSource("jdks")
    void theGcWaitedForIsNotCountedAsTheHistogramsPause(Jdks.Jdk jdk) throws Exception {
        Path log = Files.createTempFile("heap-safepoints", ".log");
        try (TargetJvm target = TargetJvm.start(jdk, LeakTarget.class, List.of("-XX:+UseG1GC", "-Xmx64m", "-Xmn8m",
                "-Xlog:safepoint:file=" + log))) {
            Result result = CliRun.run("heap", Long.toString(target.pid()), "--count", "3", "--interval", "2s", "--json");
            assertEquals(0, result.exit(), result.toString());
            List<Long> walks = new ArrayList<>();
            for (String line : Files.readAllLines(log)) {
                Matcher m = SAFEPOINT.matcher(line);
                if (m.find() && m.group(1).equals("GC_HeapInspection")) {
                    walks.add(Long.parseLong(m.group(2)));
                }
            }
            JsonNode histograms = Json.parse(result.out()).path("histograms");
            assertEquals(3, walks.size(), "one heap walk logged per histogram: " + walks);
            for (int i = 0; i < 3; i++) {
                JsonNode histogram = histograms.get(i);
                JsonNode own = histogram.path("safepoints");
                long reported = own.path("atSafepointMillis").asLong() + own.path("reachingMillis").asLong();
                long elapsedMillis = histogram.path("elapsedNanos").asLong() / 1_000_000;
                assertTrue(reported <= elapsedMillis + 1, "a pause no longer than the command: " + histogram);
                if (own.path("count").asInt() == 1) {
                    long loggedMillis = walks.get(i) / 1_000_000;
                    assertTrue(Math.abs(reported - loggedMillis) <= 2 + loggedMillis / 20,
                            "histogram " + (i + 1) + ": reported " + own + ", logged " + walks.get(i) + " ns for its walk");
                }
                JsonNode waited = histogram.path("afterGc").path("safepoints");
                assertTrue(!histogram.path("afterGc").path("gcCame").asBoolean() || waited.path("count").asInt() >= 1,
                        "the GC waited for is counted apart: " + histogram.path("afterGc"));
            }
        } finally {
            Files.deleteIfExists(log);
        }
    }

    @ParameterizedTest
    @MethodSource("collectors")
    void theLivePauseIsTheOneTheJvmLogged(Jdks.Jdk jdk, String collector) throws Exception {
        Path log = Files.createTempFile("heap-safepoints", ".log");
        try (TargetJvm target = TargetJvm.start(jdk, LeakTarget.class, List.of(collector, "-Xlog:safepoint:file=" + log))) {
            Result result = CliRun.run("heap", Long.toString(target.pid()), "--live", "--json");
            assertEquals(0, result.exit(), result.toString());
            JsonNode safepoints = Json.parse(result.out()).path("histograms").get(0).path("safepoints");
            // the safepoints the command counted are the last ones logged, the walk (GC_HeapInspection) last of all
            assertPauseIsTheLogged(log, "GC_HeapInspection", safepoints);
        } finally {
            Files.deleteIfExists(log);
        }
    }

    /**
     * The pause a command reported (its "safepoints": count, at and reaching) is what the target's
     * -Xlog:safepoint log gave its last safepoints, the one of operation last of all, within rounding.
     */
    static void assertPauseIsTheLogged(Path log, String operation, JsonNode safepoints) throws IOException {
        List<String> logged = new ArrayList<>();
        List<Long> totals = new ArrayList<>();
        for (String line : Files.readAllLines(log)) {
            Matcher m = SAFEPOINT.matcher(line);
            if (m.find()) {
                logged.add(m.group(1));
                totals.add(Long.parseLong(m.group(2)));
            }
        }
        int walk = logged.lastIndexOf(operation);
        int count = safepoints.path("count").asInt();
        assertTrue(walk >= 0 && count >= 1 && walk + 1 >= count, "counted " + safepoints + "; the target logged " + logged);
        long loggedNanos = totals.subList(walk + 1 - count, walk + 1).stream().mapToLong(Long::longValue).sum();
        long loggedMillis = loggedNanos / 1_000_000;
        long reported = safepoints.path("atSafepointMillis").asLong() + safepoints.path("reachingMillis").asLong();
        assertTrue(Math.abs(reported - loggedMillis) <= 2 + loggedMillis / 20,
                "reported " + safepoints + ", logged " + loggedNanos + " ns in " + logged.subList(walk + 1 - count, walk + 1));
    }

    @ParameterizedTest
    @MethodSource("jdks")
    void dumpWritesMemoryEachRoundAndWithHeapTheLeakInTheSummary(Jdks.Jdk jdk) throws Exception {
        Path plain = Files.createTempDirectory("dump-memory");
        Path withHeap = Files.createTempDirectory("dump-heap");
        Path log = Files.createTempFile("dump-heap-safepoints", ".log");
        try (TargetJvm target = TargetJvm.start(jdk, LeakTarget.class, List.of("-Xlog:safepoint:file=" + log))) {
            Result result = CliRun.run("dump", Long.toString(target.pid()), "--out", plain.toString(), "--interval", "1s");
            assertEquals(0, result.exit(), result.toString());
            assertTrue(Files.readString(plain.resolve("round-001/memory.txt")).contains(" Java threads x "));
            assertTrue(Files.exists(plain.resolve("round-001/memory.json")));
            assertFalse(Files.exists(plain.resolve("round-001/heap.txt")), "no histogram without --heap");
            assertFalse(Files.readString(plain.resolve("summary.md")).contains("Classes that grew"));

            long walksBefore = loggedWalks(log);
            result = CliRun.run("dump", Long.toString(target.pid()), "--out", withHeap.toString(), "--count", "3", "--interval", "2s", "--heap");
            assertEquals(0, result.exit(), result.toString());
            Thread.sleep(200); // the log is written after the safepoint ends
            assertEquals(1, loggedWalks(log) - walksBefore, "one walk of the heap for the classes that grew most, as the target logged");
            for (String round : List.of("round-001", "round-002", "round-003")) {
                assertTrue(Files.exists(withHeap.resolve(round + "/memory.txt")), round);
            }
            assertTrue(Files.readString(withHeap.resolve("round-001/heap.txt")).contains("target paused "));
            assertTrue(Files.exists(withHeap.resolve("round-003/heap.json")));
            assertFalse(Files.exists(withHeap.resolve("round-002/heap.txt")), "histograms at the first and the last round only");
            String summary = Files.readString(withHeap.resolve("summary.md"));
            Matcher leak = Pattern.compile("(?m)^\\| \\+(\\d+) \\| \\+(\\d+) \\|.*`" + Pattern.quote(LEAKED) + "` \\|$").matcher(summary);
            assertTrue(leak.find(), summary);
            // the roots of the classes that grew most: the leak's is the static map that holds every Leaked
            String roots = summary.substring(summary.indexOf("## What holds the classes that grew most"));
            assertEquals(1, Pattern.compile("target paused ").matcher(roots).results().count(), "the one walk's pause, once: " + roots);
            Matcher held = Pattern.compile("(?m)^- `" + Pattern.quote(LEAKED) + "`: (\\d+) instances reachable, on \\d+ paths?\n"
                    + "  - (\\d+) held by `static field dev\\.jvmticli\\.targets\\.LeakTarget\\.LEAK`, which keeps about ").matcher(roots);
            assertTrue(held.find(), roots);
            assertTrue(Long.parseLong(held.group(2)) >= Long.parseLong(leak.group(2)), "every Leaked that grew is held by the map: " + summary);
            String paths = Files.readString(withHeap.resolve("heap-paths.txt"));
            assertTrue(paths.contains(" instances: static field dev.jvmticli.targets.LeakTarget.LEAK, which keeps about "), paths);
            JsonNode classes = Json.parse(Files.readString(withHeap.resolve("heap-paths.json"))).path("classes");
            assertEquals(3, classes.size(), classes.toString());
            for (JsonNode grown : classes) {
                assertEquals(classes.get(0).path("report").path("elapsedNanos"), grown.path("report").path("elapsedNanos"), "one walk: " + classes);
            }
            // the leak's path with most instances as heap --paths finds it on its own: the same root and steps
            JsonNode alone = Json.parse(CliRun.run("heap", Long.toString(target.pid()), "--paths", LEAKED, "--max-paths", "1", "--json").out());
            JsonNode inDump = null;
            for (JsonNode grown : classes) {
                inDump = grown.path("className").asText().equals(LEAKED) ? grown.path("report") : inDump;
            }
            assertEquals(shape(alone.path("paths").get(0)), shape(inDump.path("paths").get(0)), "heap --paths: " + alone + "; in the dump: " + inDump);
        } finally {
            deleteTree(plain);
            deleteTree(withHeap);
            Files.deleteIfExists(log);
        }
    }

    /** The FollowReferences walks (HeapWalkOperation) the target's -Xlog:safepoint has logged so far. */
    private static long loggedWalks(Path log) throws IOException {
        return Files.readAllLines(log).stream().filter(line -> line.contains("Safepoint \"HeapWalkOperation\"")).count();
    }

    /** A path's root and steps (fields, "[]" for an array's element), without its counts (the leak grows between two walks). */
    private static String shape(JsonNode path) {
        JsonNode root = path.path("root");
        return root.path("kind").asText() + " " + root.path("class").asText() + "." + root.path("field").asText() + " " + HeapPathsIT.steps(path);
    }

    @ParameterizedTest
    @MethodSource("jdks")
    void withoutAnAttachListenerHeapSaysWhyAndMemoryTheRest(Jdks.Jdk jdk) {
        // loaded at start-up and never attached to: the JVM has not started its attach listener
        try (TargetJvm target = TargetJvm.start(jdk, LeakTarget.class, AgentMode.STARTUP.jvmOptions())) {
            String why = "the JVM's attach listener (/tmp/.java_pid" + target.pid() + ") is not running: nothing attached to this JVM yet";
            Result heap = CliRun.run("heap", Long.toString(target.pid()));
            assertEquals(1, heap.exit(), heap.toString());
            assertTrue(heap.err().contains(why), heap.toString());
            Result memory = CliRun.run("memory", Long.toString(target.pid()));
            assertEquals(0, memory.exit(), memory.toString());
            assertTrue(memory.out().contains("native memory tracking unknown: " + why), memory.toString());
            assertTrue(memory.out().contains("direct"), memory.toString());
        }
    }

    private static void deleteTree(Path root) throws java.io.IOException {
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path path : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        }
    }
}
