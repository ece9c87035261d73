package dev.jvmticli.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.jvmticli.targets.LoadersTarget;
import dev.jvmticli.testing.CliRun;
import dev.jvmticli.testing.CliRun.Result;
import dev.jvmticli.testing.Jdks;
import dev.jvmticli.testing.Json;
import dev.jvmticli.testing.TargetJvm;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * `memory --classloaders` against a target whose loaders' fates it made: the live ones in use, the
 * dropped ones unreachable and never called leaks, the leaked one named with its path from the
 * static field that holds its class; classes and metaspace the rows of jcmd's VM.classloader_stats
 * read right after. From JDK 21 the loaders whose code only virtual threads run, parked or on their
 * carrier, are in use with as many threads as the target started in their code.
 */
class ClassLoadersIT {
    static final String TARGET = "dev.jvmticli.targets.LoadersTarget";
    static final String LOADER_CLASS = TARGET + "$PluginLoader";
    private static final Pattern STATS_ROW = Pattern.compile(
            "^0x\\p{XDigit}+\\s+0x\\p{XDigit}+\\s+(0x\\p{XDigit}+)\\s+(\\d+)\\s+(\\d+)\\s+(\\d+)\\s+(\\S+)\\s*$", Pattern.MULTILINE);

    /** G1, Parallel and Shenandoah on every JDK that has them, ZGC from JDK 21. */
    static Stream<Arguments> cases() {
        return Jdks.stream().flatMap(jdk -> Stream.of("-XX:+UseG1GC", "-XX:+UseParallelGC", "-XX:+UseZGC", "-XX:+UseShenandoahGC")
                .filter(gc -> !gc.equals("-XX:+UseZGC") || jdk.feature() >= 21)
                .filter(gc -> !gc.equals("-XX:+UseShenandoahGC") || HeapPathsIT.hasShenandoah(jdk))
                .map(gc -> Arguments.of(jdk, gc)));
    }

    static Stream<Jdks.Jdk> jdks() {
        return Jdks.stream();
    }

    @ParameterizedTest
    @MethodSource("cases")
    void theLeakedLoaderIsNamedWithItsPathAndTheDroppedOnesAreNot(Jdks.Jdk jdk, String collector) throws Exception {
        try (TargetJvm target = TargetJvm.start(jdk, LoadersTarget.class, List.of(collector, "-Xmx256m"))) {
            Result result = CliRun.run("memory", Long.toString(target.pid()), "--classloaders", "--json");
            String stats = jcmd(jdk, target.pid(), "VM.classloader_stats");
            assertEquals(0, result.exit(), result.toString());
            String classloaders = jcmd(jdk, target.pid(), "VM.classloaders", "fold=false");
            checkAgainstTheTargetAndJcmd(jdk.feature(), Json.parse(result.out()), stats, classloaders);

            Result text = CliRun.run("memory", Long.toString(target.pid()), "--classloaders");
            assertEquals(0, text.exit(), text.toString());
            checkText(jdk.feature(), text.out());
        }
    }

    /**
     * The JSON of memory --classloaders against the loaders' fates LoadersTarget made on a JDK of
     * this feature release, and against jcmd's VM.classloader_stats (stats) and VM.classloaders
     * fold=false (classloaders) read right after.
     */
    static void checkAgainstTheTargetAndJcmd(int feature, JsonNode doc, String stats, String classloaders) {
        assertTrue(doc.path("safepoints").path("count").asLong() >= 1, "the walk is a safepoint: " + doc.path("safepoints"));

        Map<String, JsonNode> byName = new HashMap<>();
        Map<Long, JsonNode> byId = new HashMap<>();
        for (JsonNode row : doc.path("loaders")) {
            byId.put(row.path("loader").path("id").asLong(), row);
            if (row.path("loader").path("name").isTextual()) {
                byName.put(row.path("loader").path("name").asText(), row);
            }
        }
        long appId = byName.get("app").path("loader").path("id").asLong();
        for (int i = 0; i < 3; i++) {
            JsonNode live = byName.get("live-" + i).path("loader");
            assertEquals(LOADER_CLASS, live.path("loaderClass").asText(), live.toString());
            assertEquals(appId, live.path("parent").asLong(), live.toString());
            assertEquals(appId, live.path("loaderClassDefinedBy").asLong(), live.toString());
            assertEquals(2, live.path("classes").asLong(), live.toString());
            assertEquals(2, live.path("instances").asLong(), "the kept Plugin and its Helper: " + live);
            assertTrue(live.path("reachable").asBoolean(), live.toString());
            assertFalse(live.path("looksDead").asBoolean(), live.toString());
        }
        int virtualLoaders = feature >= 21 ? 2 : 0;
        if (feature >= 21) {
            JsonNode virtual = doc.path("virtualThreads");
            assertEquals(3, virtual.path("found").asLong(), "the target's virtual threads, no more: " + virtual);
            assertEquals(3, virtual.path("read").asLong(), virtual.toString());
            assertEquals(0, virtual.path("pastBound").asLong() + virtual.path("untracked").asLong() + virtual.path("ended").asLong(), virtual.toString());
            assertTrue(virtual.path("safepoints").isObject(), virtual.toString());
            for (Map.Entry<String, Integer> ran : Map.of("virtual-parked", 2, "virtual-spinning", 1).entrySet()) {
                JsonNode loader = byName.get(ran.getKey()).path("loader");
                assertEquals(0, loader.path("instances").asLong(), "no instance but its own statics': " + loader);
                assertEquals(ran.getValue().longValue(), loader.path("threads").asLong(), "the virtual threads in its code: " + loader);
                assertTrue(loader.path("reachable").asBoolean(), loader.toString());
                assertFalse(loader.path("looksDead").asBoolean(), loader.toString());
            }
        } else {
            assertTrue(doc.path("virtualThreads").isNull(), "no virtual threads before JDK 21: " + doc.path("virtualThreads"));
        }
        JsonNode leaked = byName.get("leaked").path("loader");
        assertTrue(leaked.path("reachable").asBoolean(), leaked.toString());
        assertTrue(leaked.path("looksDead").asBoolean(), leaked.toString());
        assertEquals(0, leaked.path("instances").asLong(), leaked.toString());
        assertEquals(2, leaked.path("instancesHeldByOwnStatics").asLong(), "Plugin.INSTANCE and its Helper: " + leaked);

        List<String> dead = new ArrayList<>();
        int dropped = 0;
        for (JsonNode row : doc.path("loaders")) {
            JsonNode loader = row.path("loader");
            if (loader.path("looksDead").asBoolean()) {
                dead.add(loader.path("name").asText());
            }
            if (loader.path("name").asText().startsWith("dropped-")) {
                dropped++;
                assertFalse(loader.path("reachable").asBoolean(), loader.toString());
            }
        }
        assertEquals(List.of("leaked"), dead, "only the leaked loader looks dead");
        assertEquals(dropped, count(classloaders, "\"dropped-"),
                "the dropped loaders still loaded: as many as jcmd lists");
        assertTrue(dropped > 0, "a collection unloaded every dropped loader before the command: the test proves nothing");

        assertEquals(1, doc.path("deadPaths").size(), doc.path("deadPaths").toString());
        JsonNode path = doc.path("deadPaths").get(0);
        assertEquals(leaked.path("id").asLong(), path.path("loader").asLong());
        assertEquals("staticField", path.path("root").path("kind").asText(), path.toString());
        assertEquals(TARGET, path.path("root").path("class").asText(), path.toString());
        assertEquals("REGISTRY", path.path("root").path("field").asText(), path.toString());
        JsonNode steps = path.path("steps");
        JsonNode last = steps.get(steps.size() - 1);
        JsonNode plugin = steps.get(steps.size() - 2);
        assertEquals(LOADER_CLASS, last.path("class").asText(), path.toString());
        assertEquals("classLoader", last.path("via").asText(), path.toString());
        assertEquals(TARGET + "$Plugin", plugin.path("classObjectOf").asText(), path.toString());
        assertEquals("value", plugin.path("field").asText(), "HashMap$Node.value holds the class: " + path);

        // classes and metaspace: the JVM's row of the same class loader data, read right after
        Map<String, long[]> rows = new HashMap<>();
        Matcher m = STATS_ROW.matcher(stats);
        int pluginRows = 0;
        while (m.find()) {
            rows.put(m.group(1), new long[] {Long.parseLong(m.group(2)), Long.parseLong(m.group(3)), Long.parseLong(m.group(4))});
            pluginRows += m.group(5).equals(LOADER_CLASS) ? 1 : 0;
        }
        assertEquals(3 + dropped + 1 + virtualLoaders, pluginRows, stats);
        for (String name : List.of("live-0", "live-1", "live-2", "leaked")) {
            JsonNode row = byName.get(name);
            JsonNode metaspace = row.path("metaspace");
            assertTrue(metaspace.path("classLoaderData").isTextual(), name + ": " + row);
            long[] jcmd = rows.get(metaspace.path("classLoaderData").asText());
            assertNotNull(jcmd, name + " " + metaspace + " in\n" + stats);
            JsonNode loader = row.path("loader");
            assertEquals(jcmd[0], loader.path("classes").asLong() + loader.path("arrayClasses").asLong() + loader.path("hiddenClasses").asLong(),
                    name + ": " + row);
            assertEquals(jcmd[1], metaspace.path("chunkBytes").asLong(), name + ": " + row);
            assertEquals(jcmd[2], metaspace.path("blockBytes").asLong(), name + ": " + row);
        }
    }

    /** The text form: the leaked loader, its path from the static field and the pause; from JDK 21 the virtual threads read. */
    static void checkText(int feature, String out) {
        assertTrue(out.contains("looks dead but reachable: \"leaked\" " + LOADER_CLASS), out);
        assertTrue(out.contains("  static field " + TARGET + ".REGISTRY, which keeps about "), out);
        assertTrue(out.contains("  " + TARGET + "$Plugin.class (its defining loader)\n  -> " + LOADER_CLASS + "\n"), out);
        assertTrue(out.contains("target paused"), out);
        assertEquals(feature >= 21, out.contains("virtual threads' stacks, read one at a time after the walk (up to 1024 frames each): 3 of 3 found read in "), out);
    }

    /**
     * --max-objects below what the heap holds: one line, exit 1; the agent answers after. From JDK 21,
     * --max-virtual-threads 1 reads one of the target's three and says no loader looks dead, not
     * even the leaked one: a loader's code may be on the stacks not read.
     */
    @ParameterizedTest
    @MethodSource("jdks")
    void theBoundsAreHeld(Jdks.Jdk jdk) {
        try (TargetJvm target = TargetJvm.start(jdk, LoadersTarget.class, List.of("-Xmx256m"))) {
            Result refused = CliRun.run("memory", Long.toString(target.pid()), "--classloaders", "--max-objects", "10000");
            assertEquals(1, refused.exit(), refused.toString());
            assertTrue(refused.err().contains("more than 10000 objects"), refused.err());
            assertEquals(1, refused.err().lines().count(), refused.err());
            Result after = CliRun.run("memory", Long.toString(target.pid()), "--classloaders", "--json");
            assertEquals(0, after.exit(), after.toString());
            if (jdk.feature() >= 21) {
                Result bounded = CliRun.run("memory", Long.toString(target.pid()), "--classloaders", "--max-virtual-threads", "1");
                assertEquals(0, bounded.exit(), bounded.toString());
                assertTrue(bounded.out().contains("0 look dead but are reachable"), bounded.out());
                assertTrue(Pattern.compile(" unknown +\"leaked\" ").matcher(bounded.out()).find(), "may be in use by a thread not read: " + bounded.out());
                assertTrue(bounded.out().contains("no loader is said to look dead: 2 virtual threads' stacks were not read"), bounded.out());
                assertTrue(bounded.out().contains(": 1 of 3 found read in "), bounded.out());
                assertTrue(bounded.out().contains("; 2 past --max-virtual-threads 1 not read"), bounded.out());
            }
            Result bad = CliRun.run("memory", Long.toString(target.pid()), "--classloaders", "--max-virtual-threads", "-1");
            assertEquals(2, bad.exit(), bad.toString());
            assertTrue(bad.err().startsWith("jvmti-cli: --max-virtual-threads must be between 0 and 100000000\n"), bad.err());
        }
    }

    /**
     * With -Djdk.trackAllThreads=false the JDK lists only the virtual thread the target's executor
     * started: the two started alone are counted as not read, and the leaked loader is unknown, not dead.
     */
    @Test
    void virtualThreadsTheJdkDoesNotListAreSaidNotRead() {
        Jdks.Jdk jdk = Jdks.atLeast(21).orElseThrow(() -> new IllegalStateException("no JDK 21+ installed"));
        try (TargetJvm target = TargetJvm.start(jdk, LoadersTarget.class, List.of("-Xmx256m", "-Djdk.trackAllThreads=false"))) {
            Result result = CliRun.run("memory", Long.toString(target.pid()), "--classloaders", "--json");
            assertEquals(0, result.exit(), result.toString());
            JsonNode doc = Json.parse(result.out());
            JsonNode virtual = doc.path("virtualThreads");
            assertEquals(1, virtual.path("found").asLong(), virtual.toString());
            assertEquals(1, virtual.path("read").asLong(), virtual.toString());
            assertEquals(2, virtual.path("untracked").asLong(), virtual.toString());
            for (JsonNode row : doc.path("loaders")) {
                JsonNode loader = row.path("loader");
                if (loader.path("name").asText().equals("leaked")) {
                    assertTrue(loader.path("looksDead").isNull(), loader.toString());
                }
                assertFalse(loader.path("looksDead").asBoolean(), loader.toString());
            }
        }
    }

    private static int count(String text, String part) {
        int n = 0;
        for (int at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + 1)) {
            n++;
        }
        return n;
    }

    private static String jcmd(Jdks.Jdk jdk, long pid, String... command) throws Exception {
        List<String> line = new ArrayList<>(List.of(jdk.home().resolve("bin/jcmd").toString(), Long.toString(pid)));
        line.addAll(List.of(command));
        Process jcmd = new ProcessBuilder(line).redirectErrorStream(true).start();
        String output = new String(jcmd.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, jcmd.waitFor(), output);
        return output;
    }
}
