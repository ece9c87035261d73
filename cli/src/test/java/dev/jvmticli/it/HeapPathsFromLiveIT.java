package dev.jvmticli.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.jvmticli.targets.LivePathsTarget;
import dev.jvmticli.testing.CliRun;
import dev.jvmticli.testing.CliRun.Result;
import dev.jvmticli.testing.Jdks;
import dev.jvmticli.testing.Json;
import dev.jvmticli.testing.TargetJvm;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * `heap --paths --from-live` against a target whose two leaks it knows, each by its allocation
 * site and its holder: every survivor sampled at the cache's site is on a path from the static
 * map, every one of the session's from the thread-local of "session-worker", the churn of both
 * threads on none; and the samples add up to the survivors alloc --live counted.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HeapPathsFromLiveIT {
    static final String TARGET = "dev.jvmticli.targets.LivePathsTarget";

    /** G1 and Parallel on every JDK, Shenandoah where the JDK has it, ZGC from JDK 21. */
    Stream<Arguments> collectors() {
        return Jdks.stream().flatMap(jdk -> Stream.of("-XX:+UseG1GC", "-XX:+UseParallelGC", "-XX:+UseZGC", "-XX:+UseShenandoahGC")
                .filter(gc -> !gc.equals("-XX:+UseZGC") || jdk.feature() >= 21)
                .filter(gc -> !gc.equals("-XX:+UseShenandoahGC") || hasShenandoah(jdk))
                .map(gc -> Arguments.of(jdk, gc)));
    }

    @ParameterizedTest
    @MethodSource("collectors")
    void eachSurvivorIsOnAPathFromTheHolderOfItsSite(Jdks.Jdk jdk, String collector) throws Exception {
        List<String> options = collector.contains("G1") || collector.contains("Parallel") ? List.of(collector, "-Xmx256m")
                : List.of(collector, "-Xmx256m", AllocLiveIT.UNCHECKED_JNI); // alloc --live refuses these under -Xcheck:jni
        try (TargetJvm target = TargetJvm.start(jdk, LivePathsTarget.class, options)) {
            assertEquals("going", target.ask("go"));
            Result result = CliRun.run("heap", Long.toString(target.pid()), "--paths", "--from-live", "--duration", "4s", "--sample-interval", "64k",
                    "--max-paths", "1000", "--json");
            assertEquals(0, result.exit(), result.toString());
            checkEachSurvivorsPath(Json.parse(result.out()));

            if (!collector.contains("G1")) {
                return;
            }
            checkText(target);
        }
    }

    /**
     * A --json report of LivePathsTarget's survivors: every one counted once, those of the cache's
     * site from LivePathsTarget.CACHE through HashMap.table, those of the session's from thread
     * "session-worker", at most one churned array a thread on a path.
     */
    static void checkEachSurvivorsPath(JsonNode doc) {
        JsonNode walk = doc.path("paths");
        assertTrue(walk.path("safepoints").path("count").asLong() >= 1, "the walk is a safepoint: " + walk);
        long survivors = doc.path("live").path("survivors").path("samples").asLong();
        assertEquals(survivors, walk.path("samplesReached").asLong() + walk.path("unreachedSamples").asLong()
                + walk.path("samplesNotReached").asLong(), "every survivor is on a path or counted apart: " + walk);
        assertEquals(walk.path("pathCount").asLong(), walk.path("paths").size(), walk.toString());

        long cached = 0, session = 0, churn = 0, inFlight = 0;
        for (JsonNode path : walk.path("paths")) {
            List<String> frames = texts(path.path("frames"));
            JsonNode root = path.path("root");
            if (root.path("kind").asText().equals("stackLocal") && calls(frames, "fillCache")) {
                // allocated, not yet put into the map, when the walk came: still in a local of its thread's frame
                assertEquals("cache-filler", root.path("thread").asText(), path.toString());
                inFlight += path.path("samples").asLong();
            } else if (calls(frames, "fillCache")) {
                assertEquals("staticField", root.path("kind").asText(), path.toString());
                assertEquals(TARGET, root.path("class").asText(), path.toString());
                assertEquals("CACHE", root.path("field").asText(), path.toString());
                assertEquals(List.of("java.util.HashMap", "table"), steps(path).subList(0, 2), path.toString()); // its table too, when it grows
                cached += path.path("samples").asLong();
            } else if (calls(frames, "fillSession")) {
                // its thread-local, from the Thread object; or, when the walk found the thread inside SESSION.get(), from that frame's
                // local, a shorter path to the same list
                assertEquals("session-worker", root.path("thread").asText(), path.toString());
                if (root.path("kind").asText().equals("thread")) {
                    assertEquals(List.of("java.lang.Thread", "threadLocals", "table", "[]", "value"), steps(path).subList(0, 5), path.toString());
                } else {
                    assertEquals("stackLocal", root.path("kind").asText(), path.toString());
                    JsonNode frame = root.path("frame");
                    assertTrue(frame.path("class").asText().startsWith("java.lang.ThreadLocal") || frame.path("method").asText().equals("fillSession"),
                            path.toString());
                }
                session += path.path("samples").asLong();
            } else if (calls(frames, "churn")) {
                churn += path.path("samples").asLong(); // at most the last array each thread made, which sink may still hold
            }
        }
        assertTrue(cached > 0 && session > 0, "both leaks sampled: cache " + cached + ", session " + session + "; " + walk);
        assertTrue(churn <= 2, "the churn is garbage: " + churn + " samples on a path; " + walk);
        assertTrue(inFlight <= 2, "at most one object a thread between its allocation and its holder: " + inFlight + "; " + walk);
    }

    /** The text report names the cache's site and its static field, and the pause. */
    static void checkText(TargetJvm target) {
        Result text = CliRun.run("heap", Long.toString(target.pid()), "--paths", "--from-live", "--duration", "2s", "--sample-interval", "64k");
        assertEquals(0, text.exit(), text.toString());
        assertTrue(text.out().contains(" allocated at " + TARGET + "$Cached.<init>:"), text.out());
        assertTrue(text.out().contains(": static field " + TARGET + ".CACHE, which keeps about "), text.out());
        assertTrue(text.out().contains("target paused"), text.out());
    }

    @ParameterizedTest
    @MethodSource("dev.jvmticli.testing.Jdks#stream")
    void refusedPastItsBoundAndWithAClassNameAndNoWalkWithoutSurvivors(Jdks.Jdk jdk) throws Exception {
        try (TargetJvm target = TargetJvm.start(jdk, LivePathsTarget.class, List.of("-Xmx256m"))) {
            assertEquals("going", target.ask("go"));
            Result refused = CliRun.run("heap", Long.toString(target.pid()), "--paths", "--from-live", "--duration", "2s", "--sample-interval", "64k",
                    "--max-objects", "10000"); // survivors to walk to: without them nothing is walked
            assertTrue(refused.out().isEmpty(), refused.out());
            assertEquals(1, refused.exit(), refused.toString());
            assertTrue(refused.err().contains("more than 10000 objects"), refused.err());
            assertEquals(1, refused.err().lines().count(), refused.err());
            Result none = CliRun.run("heap", Long.toString(target.pid()), "--paths", "--from-live", "--duration", "1s", "--min-age", "1000000");
            assertEquals(0, none.exit(), none.toString());
            assertTrue(none.out().contains("Still alive at the end, having survived at least 1000000 GCs: 0 samples"), none.out());
            assertTrue(none.out().contains("No survivor to find a path to: the heap was not walked, and the target not stopped."), none.out());
            Result usage = CliRun.run("heap", Long.toString(target.pid()), "--paths", TARGET, "--from-live");
            assertEquals(2, usage.exit(), usage.toString());
            Result alone = CliRun.run("heap", Long.toString(target.pid()), "--paths", "--duration", "1s");
            assertEquals(2, alone.exit(), alone.toString());
        }
    }

    private static boolean calls(List<String> frames, String method) {
        return frames.stream().anyMatch(f -> f.startsWith(TARGET + "." + method + ":") || f.equals(TARGET + "." + method));
    }

    private static List<String> texts(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asText()));
        return out;
    }

    /** The path's first class, then each field name or "[]" for an array element. */
    private static List<String> steps(JsonNode path) {
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

    private static boolean hasShenandoah(Jdks.Jdk jdk) {
        try {
            Process p = new ProcessBuilder(jdk.java().toString(), "-XX:+UseShenandoahGC", "-version").redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor() == 0;
        } catch (IOException | InterruptedException e) {
            return false;
        }
    }
}
