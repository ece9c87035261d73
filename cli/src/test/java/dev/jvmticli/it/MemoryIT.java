package dev.jvmticli.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.jvmticli.targets.LeakTarget;
import dev.jvmticli.testing.CliRun;
import dev.jvmticli.testing.CliRun.Result;
import dev.jvmticli.testing.Jdks;
import dev.jvmticli.testing.Json;
import dev.jvmticli.testing.TargetJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** `memory` against what the target's MXBeans say about itself and what the kernel says about it, on every installed JDK. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MemoryIT {
    Stream<Jdks.Jdk> jdks() {
        return Jdks.stream();
    }

    private static Map<String, Long> selfReport(TargetJvm target) {
        Map<String, Long> values = new HashMap<>();
        for (String pair : target.ask("memory").split(" ")) {
            String[] kv = pair.split("=", 2);
            values.put(kv[0], Long.parseLong(kv[1]));
        }
        return values;
    }

    private static long smapsRollupRss(long pid) throws Exception {
        for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/smaps_rollup"))) {
            if (line.startsWith("Rss:")) {
                return Long.parseLong(line.replaceAll("\\D", "")) * 1024;
            }
        }
        throw new AssertionError("no Rss in smaps_rollup");
    }

    /** Within 5% of what the target (or the kernel) said just before or just after. */
    private static void assertClose(long before, long after, long actual, String what) {
        long low = Math.min(before, after);
        long high = Math.max(before, after);
        assertTrue(actual >= low - low / 20 && actual <= high + high / 20,
                what + ": the target says " + before + " before and " + after + " after, memory " + actual);
    }

    @ParameterizedTest
    @MethodSource("jdks")
    void agreesWithTheTargetsMxBeansAndTheKernel(Jdks.Jdk jdk) throws Exception {
        try (TargetJvm target = TargetJvm.start(jdk, LeakTarget.class)) {
            selfReport(target); // the classes the target's own report loads, loaded before
            Map<String, Long> before = selfReport(target);
            long rssBefore = smapsRollupRss(target.pid());
            Result result = CliRun.run("memory", Long.toString(target.pid()), "--json");
            Map<String, Long> self = selfReport(target);
            long rss = smapsRollupRss(target.pid());
            assertEquals(0, result.exit(), result.toString());
            JsonNode memory = Json.parse(result.out()).path("memory");
            assertEquals(self.get("heap.max"), memory.path("heap").path("max").asLong());
            assertClose(before.get("heap.committed"), self.get("heap.committed"), memory.path("heap").path("committed").asLong(), "heap committed");
            int nonHeap = 0;
            for (JsonNode pool : memory.path("pools")) {
                if (pool.path("type").asText().equals("NON_HEAP")) {
                    String name = pool.path("name").asText();
                    String key = "pool." + name.replace(' ', '_') + ".committed";
                    assertClose(before.get(key), self.get(key), pool.path("usage").path("committed").asLong(), name);
                    nonHeap++;
                }
            }
            assertTrue(nonHeap >= 2, "metaspace and code cache at least: " + memory.path("pools"));
            JsonNode direct = null;
            for (JsonNode pool : memory.path("bufferPools")) {
                if (pool.path("name").asText().equals("direct")) {
                    direct = pool;
                }
            }
            assertTrue(direct != null, memory.path("bufferPools").toString());
            assertEquals(self.get("buffers.direct.count"), direct.path("count").asLong());
            assertEquals(self.get("buffers.direct.used"), direct.path("used").asLong());
            assertTrue(direct.path("used").asLong() >= 3 << 20, direct.toString());
            assertEquals(self.get("threads"), memory.path("threads").asLong());
            assertClose(rssBefore, rss, memory.path("resident").path("Rss").asLong(), "RSS");
            long split = memory.path("resident").path("RssAnon").asLong() + memory.path("resident").path("RssFile").asLong()
                    + memory.path("resident").path("RssShmem").asLong();
            assertClose(rssBefore, rss, split, "RssAnon + RssFile + RssShmem");
            assertTrue(memory.path("collectors").size() >= 1, memory.toString());
            assertTrue(memory.path("nativeMemory").asText().contains("not enabled"), memory.toString());
            Result text = CliRun.run("memory", Long.toString(target.pid()));
            assertTrue(text.out().contains("native memory tracking is off: start the JVM with -XX:NativeMemoryTracking=summary"), text.toString());
            assertTrue(text.out().contains(" Java threads x "), text.toString());
        }
    }

    @ParameterizedTest
    @MethodSource("jdks")
    void printsTheNativeMemorySummaryWhenTracked(Jdks.Jdk jdk) {
        try (TargetJvm target = TargetJvm.start(jdk, LeakTarget.class, List.of("-XX:NativeMemoryTracking=summary", "-Xss512k"))) {
            Result result = CliRun.run("memory", Long.toString(target.pid()));
            assertEquals(0, result.exit(), result.toString());
            assertTrue(result.out().contains("Native Memory Tracking:"), result.out());
            assertTrue(result.out().matches("(?s).*Total: reserved=\\d+.*"), result.out());
            assertFalse(result.out().contains("native memory tracking is off"), result.out());
            assertTrue(result.out().contains(" Java threads x 512 KiB stack (ThreadStackSize, "), result.out());
        }
    }
}
