package dev.jvmticli.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.jvmticli.client.AgentClient;
import dev.jvmticli.client.AgentError;
import dev.jvmticli.targets.AllocTarget;
import dev.jvmticli.testing.AgentProbe;
import dev.jvmticli.testing.CliRun;
import dev.jvmticli.testing.CliRun.Result;
import dev.jvmticli.testing.Jdks;
import dev.jvmticli.testing.Json;
import dev.jvmticli.testing.TargetJvm;
import dev.jvmticli.testing.TargetsPerJdk;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** `alloc` against a target whose dominant allocated class and site are known, on every installed JDK. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AllocIT {
    static final String CAPABILITY = "can_generate_sampled_object_alloc_events";
    static final String MARKER = "dev.jvmticli.targets.AllocTarget$Marker[]";
    static final String CHURN = "dev.jvmticli.targets.AllocTarget.churn";
    static final String REPEAT_TEXT = "dev.jvmticli.targets.AllocTarget.repeatText";
    /**
     * Samples for String.repeat's site, 7% of the allocator's bytes, to be in a report but once in
     * millions of runs (0.93^200).
     */
    private static final long SAMPLES = 200;

    @RegisterExtension
    static final TargetsPerJdk targets = TargetsPerJdk.of(AllocTarget.class);

    Stream<Jdks.Jdk> jdks() {
        return Jdks.stream();
    }

    private String pid(Jdks.Jdk jdk) {
        return Long.toString(targets.get(jdk).pid());
    }

    /** An alloc run at one sample per 128 KiB, and how long it sampled. */
    private record Sampled(Result result, String duration) {
    }

    /**
     * Runs alloc with the options, sampling for 1.5 s and, when that gave fewer than SAMPLES, again
     * as much longer as its own count says (three runs at most): the allocator allocates as fast as
     * the CPU it gets lets it, and a loaded machine gives it less.
     */
    private static Sampled allocWithEnoughSamples(String pid, String... options) {
        long millis = 1500;
        Result result = alloc(pid, millis, options);
        for (int run = 1; run < 3 && samples(result) < SAMPLES; run++) {
            millis = Math.min(60_000, (long) (millis * 1.5 * SAMPLES / Math.max(1, samples(result))));
            result = alloc(pid, millis, options);
        }
        assertTrue(samples(result) >= SAMPLES, "enough samples for the sites of the allocator's smaller allocations: "
                + samples(result) + " (at least " + SAMPLES + ") in " + millis + " ms: " + result);
        return new Sampled(result, millis + "ms");
    }

    private static Result alloc(String pid, long millis, String... options) {
        List<String> args = new ArrayList<>(List.of("alloc", pid, "--duration", millis + "ms", "--interval", "128k"));
        args.addAll(List.of(options));
        Result result = CliRun.run(args.toArray(String[]::new));
        assertEquals(0, result.exit(), result.toString());
        System.out.printf("JVM %s: %d samples in %d ms%n", pid, samples(result), millis);
        return result;
    }

    /** The samples a report (JSON, or the table's first line) says it took. */
    private static long samples(Result result) {
        if (result.out().startsWith("{")) {
            return Json.parse(result.out()).path("samples").asLong();
        }
        Matcher first = Pattern.compile("^(\\d+) samples in ").matcher(result.out());
        assertTrue(first.find(), result.toString());
        return Long.parseLong(first.group(1));
    }

    @ParameterizedTest
    @MethodSource("jdks")
    void theDominantClassAndSiteTopTheReportAndTheCapabilityIsGivenBack(Jdks.Jdk jdk) {
        Result result = allocWithEnoughSamples(pid(jdk), "--json").result();
        JsonNode doc = Json.parse(result.out());
        assertEquals(128 * 1024, doc.path("intervalBytes").asLong());
        JsonNode topClass = doc.path("classes").get(0);
        assertEquals(MARKER, topClass.path("className").asText(), result.out());
        assertTrue(topClass.path("estimatedBytes").asLong() > 0.8 * doc.path("estimatedBytes").asLong(), result.out());
        JsonNode topSite = doc.path("sites").get(0);
        assertTrue(topSite.path("site").asText().startsWith(CHURN + ":"), result.out());
        assertEquals(topSite.path("site").asText(), topSite.path("applicationFrame").asText(), "a site in application code is its own");
        assertEquals(MARKER, topSite.path("className").asText());
        JsonNode repeat = null;
        for (JsonNode site : doc.path("sites")) {
            if (site.path("applicationFrame").asText().startsWith(REPEAT_TEXT + ":")) {
                repeat = site;
            }
        }
        assertTrue(repeat != null, "String.repeat's allocations are traced to the method that called it: " + result.out());
        assertTrue(repeat.path("site").asText().startsWith("java.lang."), "the site is the JDK's own frame: " + repeat);
        List<String> frames = Json.texts(doc.path("stacks").get(0).path("frames"));
        assertTrue(frames.get(0).startsWith(CHURN + ":"), frames.toString());
        assertTrue(frames.stream().anyMatch(f -> f.startsWith("java.lang.Thread.run")), frames.toString());
        assertEquals(0, doc.path("droppedStacks").asLong());

        assertFalse(AgentProbe.capabilities(targets.get(jdk).pid()).contains(CAPABILITY), "capability relinquished at stop");
    }

    @ParameterizedTest
    @MethodSource("jdks")
    void tableCollapsedStacksAndFlameGraphPage(Jdks.Jdk jdk, @TempDir Path dir) throws Exception {
        Result table = allocWithEnoughSamples(pid(jdk), "--top", "3").result();
        String[] lines = table.out().split("\n");
        assertTrue(lines[0].matches("\\d+ samples in [\\d.]+ s at one per 128 KiB on average: about .+ allocated"), table.out());
        assertTrue(lines[1].matches("GCs during the window: \\d+"), table.out());
        assertEquals("Top classes:", lines[3]);
        assertTrue(lines[5].endsWith("  " + MARKER), table.out());
        Sampled sampled = allocWithEnoughSamples(pid(jdk), "--top", "20");
        Result sites = sampled.result();
        assertTrue(sites.out().lines().anyMatch(l -> l.matches(".*  java\\.lang\\.\\S+ <- " + REPEAT_TEXT.replace(".", "\\.") + ":\\d+")),
                "a JDK site names the application frame that called it: " + sites.out());

        Path page = dir.resolve("alloc.html");
        // as long as the sites' table took for its samples: collapsed stacks print no count to go by
        Result collapsed = CliRun.run("alloc", pid(jdk), "--duration", sampled.duration(), "--interval", "128k", "--collapsed",
                "--html", page.toString());
        assertEquals(0, collapsed.exit(), collapsed.toString());
        assertEquals("wrote " + page + "\n", collapsed.err());
        boolean churnLine = false;
        for (String line : collapsed.out().split("\n")) {
            assertTrue(line.matches("[^ ;][^;]*(;[^;]+)* \\d+"), "collapsed line: " + line);
            churnLine |= line.contains(";" + CHURN + ";" + MARKER + " ");
        }
        assertTrue(churnLine, collapsed.out());
        String html = Files.readString(page, StandardCharsets.UTF_8);
        assertTrue(html.startsWith("<!DOCTYPE html>"));
        assertTrue(html.contains("AllocTarget$Marker[]"));
        assertFalse(html.contains("http:") || html.contains("https:") || html.contains("src="), "self-contained");
    }

    @ParameterizedTest
    @MethodSource("jdks")
    void oneSessionAtATimeAndItEndsWithItsClient(Jdks.Jdk jdk) throws Exception {
        long pid = targets.get(jdk).pid();
        CliRun.run("threads", Long.toString(pid)); // the agent is resident
        try (AgentClient owner = AgentProbe.open(pid)) {
            owner.call("alloc.start", Map.of("interval", 65536), JsonNode.class);
            assertTrue(AgentProbe.capabilities(pid).contains(CAPABILITY), "held while sampling");
            Result second = CliRun.run("alloc", Long.toString(pid), "--duration", "100ms");
            assertEquals(1, second.exit(), second.toString());
            assertTrue(second.err().contains("allocation sampling is already running for another client"), second.err());
            try (AgentClient other = AgentProbe.open(pid)) {
                AgentError error = org.junit.jupiter.api.Assertions.assertThrows(AgentError.class,
                        () -> other.call("alloc.stop", Map.of(), JsonNode.class));
                assertEquals("not_owner", error.code());
            }
        } // the owner disconnects without stopping: the agent stops for it
        assertFalse(AgentProbe.awaitCapability(pid, CAPABILITY, false).contains(CAPABILITY), "given back when the client went away");
        Result again = CliRun.run("alloc", Long.toString(pid), "--duration", "200ms", "--json");
        assertEquals(0, again.exit(), again.toString());
    }

    @ParameterizedTest
    @MethodSource("jdks")
    void anotherAgentHoldingTheCapabilityIsNamed(Jdks.Jdk jdk) {
        Path holder = Path.of(System.getProperty("user.dir")).resolve("../native/target/test/libholdcap.so").normalize();
        assertTrue(Files.isRegularFile(holder), "built by the native module's test phase: " + holder);
        try (TargetJvm target = TargetJvm.start(jdk, AllocTarget.class, List.of("-agentpath:" + holder))) {
            Result result = CliRun.run("alloc", Long.toString(target.pid()), "--duration", "100ms");
            assertEquals(1, result.exit(), result.toString());
            assertTrue(result.err().contains(CAPABILITY + " is not available: another JVMTI agent in this JVM holds it"), result.err());
            assertTrue(result.err().contains("JVMTI_ERROR_NOT_AVAILABLE"), result.err());
            assertFalse(AgentProbe.capabilities(target.pid()).contains(CAPABILITY));
        }
    }
}
