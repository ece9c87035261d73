package dev.jvmticli.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.jvmticli.targets.BigGarbageTarget;
import dev.jvmticli.targets.LeakTarget;
import dev.jvmticli.testing.AgentProbe;
import dev.jvmticli.testing.CliRun;
import dev.jvmticli.testing.CliRun.Result;
import dev.jvmticli.testing.Jdks;
import dev.jvmticli.testing.Json;
import dev.jvmticli.testing.TargetJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * `alloc --live` against a target that leaks a known number of objects from one site while another
 * churns 100 times those bytes of garbage, and against the same target without the leak: on G1,
 * Parallel and Shenandoah (which clears weak refs concurrently) on JDK 17; and the leak on ZGC on JDK 25, whose young collections do not clear weak refs
 * (only its old generation's marking processes them), so there the test has the target run major
 * collections (System.gc()) and the report says that its ages count those only; the control
 * without the leak on each. On a target of large garbage, what the table leaves alone: G1's
 * humongous objects, and on ZGC what would pass its budget. Shenandoah and ZGC targets run without
 * checked JNI, where the CLI refuses (the last test).
 */
class AllocLiveIT {
    static final String CAPABILITY = "can_generate_sampled_object_alloc_events";
    static final String LEAKED = "dev.jvmticli.targets.LeakTarget$Leaked";
    static final String LEAK_SITE = "dev.jvmticli.targets.LeakTarget.leak:";
    static final String CHURN_SITE = "dev.jvmticli.targets.LeakTarget.churn:";
    static final int INTERVAL = 1024;
    static final int LEAK = 4000;
    /** Turns -Xcheck:jni off again: under it each look at a sample keeps it alive through a concurrent marking. */
    static final String UNCHECKED_JNI = "-XX:-CheckJNICalls";

    static Stream<Arguments> collectors() {
        List<Arguments> runs = new ArrayList<>();
        Jdks.stream().filter(jdk -> jdk.feature() == 17).forEach(jdk -> {
            runs.add(Arguments.of(jdk, "-XX:+UseG1GC"));
            runs.add(Arguments.of(jdk, "-XX:+UseParallelGC"));
            runs.add(Arguments.of(jdk, "-XX:+UseShenandoahGC")); // clears weak refs concurrently, as ZGC does
        });
        return runs.stream();
    }

    /**
     * A small heap, so that the churn is collected about once a second; on G1 a small young
     * generation too. Shenandoah's own cycles are fewer, and a collection counts there only once a
     * later one is seen: the target runs one every 250 ms.
     */
    private static TargetJvm start(Jdks.Jdk jdk, String collector) {
        List<String> options = switch (collector) {
            case "-XX:+UseG1GC" -> List.of(collector, "-Xmx64m", "-Xmn8m");
            case "-XX:+UseShenandoahGC" -> List.of(collector, "-Xmx64m", UNCHECKED_JNI);
            default -> List.of(collector, "-Xmx64m");
        };
        TargetJvm target = TargetJvm.start(jdk, LeakTarget.class, options, "on-command");
        if (collector.equals("-XX:+UseShenandoahGC")) {
            target.ask("gc every 250");
        }
        return target;
    }

    /** Starts `alloc --live` with args on a resident agent, and returns once its session runs. */
    private static CompletableFuture<Result> startLive(long pid, String... args) throws InterruptedException {
        assertEquals(0, CliRun.run("threads", Long.toString(pid)).exit(), "the agent is resident");
        List<String> command = new ArrayList<>(List.of("alloc", Long.toString(pid), "--live", "--interval", Integer.toString(INTERVAL), "--force"));
        command.addAll(List.of(args));
        CompletableFuture<Result> run = CompletableFuture.supplyAsync(() -> CliRun.run(command.toArray(String[]::new)));
        assertTrue(AgentProbe.awaitCapability(pid, CAPABILITY, true).contains(CAPABILITY), "the session started");
        return run;
    }

    /** What one sampled object of size bytes stands for (aggregate.c's sample_weight). */
    private static double weight(double size) {
        return size / (1 - Math.exp(-size / INTERVAL));
    }

    @ParameterizedTest
    @MethodSource("collectors")
    void theLeakSiteLeadsAndItsBytesAreWithinTheSamplingErrorWhileTheChurnIsGone(Jdks.Jdk jdk, String collector) throws Exception {
        Path page = Files.createTempFile("alloc-live", ".html");
        try (TargetJvm target = start(jdk, collector)) {
            CompletableFuture<Result> run = startLive(target.pid(), "--duration", "10s", "--json", "--html", page.toString());
            long leaked = Long.parseLong(target.ask("leak " + LEAK));
            long collections = Long.parseLong(target.ask("gcs"));
            while (Long.parseLong(target.ask("gcs")) < collections + 3 && !run.isDone()) {
                Thread.sleep(100); // until the leak has survived collections that started after it
            }
            assertFalse(run.isDone(), "three collections after the leak, within the window");
            assertLeakLeads(run.get(), leaked, page);
        } finally {
            Files.deleteIfExists(page);
        }
    }

    /** The leak's site first, the churn gone, the leaked class's estimate within the sampling error, and its flame graph. */
    private static void assertLeakLeads(Result result, long leaked, Path page) throws Exception {
        assertEquals(0, result.exit(), result.toString());
        assertEquals(LEAK, leaked);
        JsonNode doc = Json.parse(result.out());
        JsonNode live = doc.path("live");
        assertEquals(1, live.path("minAge").asInt(), result.out());
        assertEquals(0, live.path("tableFull").asLong() + live.path("noReference").asLong() + doc.path("droppedStacks").asLong(),
                "every sample followed: " + live);
        assertTrue(live.path("collections").asLong() >= 3, live.toString());

        JsonNode first = doc.path("sites").path(0);
        assertTrue(first.path("site").asText().startsWith(LEAK_SITE), result.out());
        assertEquals(LEAKED, first.path("className").asText(), result.out());
        for (JsonNode site : doc.path("sites")) {
            if (site.path("site").asText().startsWith(CHURN_SITE)) {
                // the churn holds one array at a time (its static sink): at most that one sample survives
                assertTrue(site.path("samples").asLong() <= 1, "the churn is collected: " + site);
            }
        }

        JsonNode leakedClass = null;
        for (JsonNode row : doc.path("classes")) {
            leakedClass = row.path("className").asText().equals(LEAKED) ? row : leakedClass;
        }
        assertNotNull(leakedClass, result.out());
        assertTrue(leakedClass.path("ages").path("youngest").asLong() >= 1, leakedClass.toString());
        // each sample is one object of the class's exact size; the estimate is the samples times
        // their weight w, of variance truth * (w - size): four standard deviations either way
        double size = (double) leakedClass.path("sampledBytes").asLong() / leakedClass.path("samples").asLong();
        double truth = LEAK * size;
        double sigma = Math.sqrt(truth * (weight(size) - size));
        long estimate = leakedClass.path("estimatedBytes").asLong();
        String estimated = "estimated " + estimate + " bytes of " + LEAKED + ", leaked " + truth + " (sigma " + sigma + "): " + leakedClass;
        assertTrue(Math.abs(estimate - truth) <= 4 * sigma, estimated);

        String html = Files.readString(page);
        assertTrue(html.contains("Live objects in JVM ") && html.contains("LeakTarget$Leaked"), "the flame graph of the survivors");
    }

    static Stream<Jdks.Jdk> zgcJdks() {
        return Jdks.stream().filter(jdk -> jdk.feature() >= 25);
    }

    /**
     * Major collections forced by the target itself every 250 ms, before and during the leak: the
     * churn dies only in those, and must not fill the table between two of them.
     */
    @ParameterizedTest
    @MethodSource("zgcJdks")
    void onZgcMajorCollectionsAgeTheLeakAndTheReportSaysSo(Jdks.Jdk jdk) throws Exception {
        Path page = Files.createTempFile("alloc-live", ".html");
        try (TargetJvm target = TargetJvm.start(jdk, LeakTarget.class, List.of("-XX:+UseZGC", "-Xmx64m", UNCHECKED_JNI), "on-command")) {
            target.ask("gc every 250");
            CompletableFuture<Result> run = startLive(target.pid(), "--duration", "6s", "--json", "--html", page.toString());
            long leaked = Long.parseLong(target.ask("leak " + LEAK));
            long collections = Long.parseLong(target.ask("gcs"));
            while (Long.parseLong(target.ask("gcs")) < collections + 3 && !run.isDone()) {
                Thread.sleep(100);
            }
            assertFalse(run.isDone(), "three major collections after the leak, within the window");
            Result result = run.get();
            assertTrue(Json.parse(result.out()).path("agesCountMajorCollectionsOnly").asBoolean(), result.out());
            assertLeakLeads(result, leaked, page);
        } finally {
            Files.deleteIfExists(page);
        }
    }

    static final Pattern SURVIVORS = Pattern.compile(
            "Still alive at the end, having survived at least 1 GC: (\\d+) samples, about .+ \\((\\d+) GCs seen; (\\d+) more samples alive but younger");

    @ParameterizedTest
    @MethodSource("collectors")
    void withoutTheLeakNothingSurvivesButNoise(Jdks.Jdk jdk, String collector) throws Exception {
        try (TargetJvm target = start(jdk, collector)) {
            long collections = Long.parseLong(target.ask("gcs"));
            Result result = startLive(target.pid(), "--duration", "4s").get();
            assertTrue(Long.parseLong(target.ask("gcs")) >= collections + 3, "collections ran during the window");
            assertNothingSurvivesButNoise(result);
        }
    }

    /** The control on ZGC: the same churn, major collections forced as for the leak, and none of it survives one. */
    @ParameterizedTest
    @MethodSource("zgcJdks")
    void onZgcWithoutTheLeakNothingSurvivesAMajorCollectionButNoise(Jdks.Jdk jdk) throws Exception {
        try (TargetJvm target = TargetJvm.start(jdk, LeakTarget.class, List.of("-XX:+UseZGC", "-Xmx64m", UNCHECKED_JNI), "on-command")) {
            target.ask("gc every 250");
            Result result = startLive(target.pid(), "--duration", "4s").get();
            assertTrue(result.out().contains("(ZGC: its young collections do not clear weak refs, so ages count major collections only"),
                    result.out());
            assertNothingSurvivesButNoise(result);
        }
    }

    /**
     * Garbage in humongous arrays on G1: they live in the old generation from the start, where the
     * young collections that age the samples never look, and G1 does not reclaim one early while a
     * weak ref points at it. The agent does not follow them (larger than half a region: 512 KiB on
     * this heap), and G1 runs no full collection. Following them, 4 s of this garbage saw 2 full
     * collections; with the budget alone, the last arrays were listed as survivors of hundreds of GCs.
     */
    @ParameterizedTest
    @MethodSource("dev.jvmticli.testing.Jdks#stream")
    void onG1HumongousGarbageIsNotFollowed(Jdks.Jdk jdk) throws Exception {
        try (TargetJvm target = TargetJvm.start(jdk, BigGarbageTarget.class, List.of("-XX:+UseG1GC", "-Xmx256m"))) {
            long full = Long.parseLong(target.ask("full gcs"));
            Result result = startLive(target.pid(), "--duration", "4s", "--json").get();
            assertEquals(0, result.exit(), result.toString());
            JsonNode live = Json.parse(result.out()).path("live");
            assertEquals(512 << 10, live.path("largestBytes").asLong(), live.toString());
            assertTrue(live.path("tooLarge").asLong() > 0, "arrays of 1 MiB sampled and left alone: " + live);
            assertEquals(0, live.path("survivors").path("samples").asLong(), live.toString());
            assertEquals(full, Long.parseLong(target.ask("full gcs")), "no full collection: " + live);
        }
    }

    /**
     * The same garbage on ZGC, whose young collections mark through the weak refs: the table
     * follows at most its budget of sampled bytes at once (8 MiB on this heap). Without it, a
     * target dropping 1 MiB arrays at 1 GB/s into a 256 MB heap had 192 MB left after a median
     * collection, against 6 MB, and 119 allocation stalls in 15 s.
     */
    @ParameterizedTest
    @MethodSource("zgcJdks")
    void onZgcTheTableFollowsAtMostItsBudget(Jdks.Jdk jdk) throws Exception {
        try (TargetJvm target = TargetJvm.start(jdk, BigGarbageTarget.class, List.of("-XX:+UseZGC", "-Xmx256m", UNCHECKED_JNI))) {
            Result result = startLive(target.pid(), "--duration", "4s", "--json").get();
            assertEquals(0, result.exit(), result.toString());
            JsonNode live = Json.parse(result.out()).path("live");
            assertEquals(8 << 20, live.path("budgetBytes").asLong(), live.toString());
            assertEquals(0, live.path("largestBytes").asLong(), "any size followed: " + live);
            assertTrue(live.path("overBudget").asLong() > 0, "the budget was reached: " + live);
            assertTrue(live.path("younger").path("sampledBytes").asLong() + live.path("survivors").path("sampledBytes").asLong()
                    <= 8 << 20, "followed at the end within the budget: " + live);
        }
    }

    static Stream<Arguments> concurrentMarkers() {
        return Stream.concat(Jdks.stream().filter(jdk -> jdk.feature() == 17).map(jdk -> Arguments.of(jdk, "-XX:+UseShenandoahGC")),
                zgcJdks().map(jdk -> Arguments.of(jdk, "-XX:+UseZGC")));
    }

    /** Checked JNI on a collector that marks concurrently: the CLI says it cannot tell, and starts nothing. */
    @ParameterizedTest
    @MethodSource("concurrentMarkers")
    void withCheckedJniOnAConcurrentMarkerItRefuses(Jdks.Jdk jdk, String collector) throws Exception {
        try (TargetJvm target = TargetJvm.start(jdk, LeakTarget.class, List.of(collector, "-Xmx64m"), "on-command")) {
            Result result = CliRun.run("alloc", Long.toString(target.pid()), "--live", "--duration", "1s");
            assertEquals(1, result.exit(), result.toString());
            String name = collector.equals("-XX:+UseZGC") ? "ZGC" : "Shenandoah";
            assertTrue(result.err().contains("alloc --live cannot tell survivors from garbage in JVM " + target.pid() + ": on " + name
                    + " with -Xcheck:jni"), result.toString());
            assertEquals("", result.out(), result.toString());
            assertFalse(AgentProbe.capabilities(target.pid()).contains(CAPABILITY), "no sampling session started");
        }
    }

    /** At least 3 collections seen (major ones on ZGC), and at age 1 or more only what the JVM itself keeps. */
    private static void assertNothingSurvivesButNoise(Result result) {
        assertEquals(0, result.exit(), result.toString());
        Matcher m = SURVIVORS.matcher(result.out());
        assertTrue(m.find(), result.out());
        assertTrue(Long.parseLong(m.group(2)) >= 3, result.out());
        // the churn's last array, and what the JDK keeps of its own (a thread's buffers, a class's data)
        assertTrue(Long.parseLong(m.group(1)) <= 5, "noise only: " + result.out());
        assertFalse(result.out().contains(LEAKED), result.out());
    }
}
