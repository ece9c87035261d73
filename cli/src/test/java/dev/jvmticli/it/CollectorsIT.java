package dev.jvmticli.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.jvmticli.targets.CollectorsTarget;
import dev.jvmticli.targets.ContentionTarget;
import dev.jvmticli.testing.CliRun;
import dev.jvmticli.testing.CliRun.Result;
import dev.jvmticli.testing.Jdks;
import dev.jvmticli.testing.Json;
import dev.jvmticli.testing.TargetJvm;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * alloc, contention and jit under every collector: G1, Parallel and Serial on every JDK, and ZGC
 * (generational from JDK 23 on) and Shenandoah on JDK 25, on a target that churns a 32 MB heap:
 * the same results, collections counted during the alloc window, no warning, no crash.
 */
class CollectorsIT {
    static final String MARKER = CollectorsTarget.Marker.class.getName() + "[]";
    static final String LOCK = ContentionTarget.Lock.class.getName();
    /** What JDK 21+ prints when an agent is loaded into a running JVM. */
    static final Pattern DYNAMIC_LOAD_NOTICE = Pattern.compile("^WARNING: (A JVM TI agent has been loaded dynamically|If a serviceability tool is in use"
            + "|Dynamic loading of agents will be disallowed)");

    /** A collector: its -XX flag and the name of one of its GarbageCollectorMXBeans. */
    enum Collector {
        G1("UseG1GC", "G1 Young Generation", 11), PARALLEL("UseParallelGC", "PS Scavenge", 11), SERIAL("UseSerialGC", "Copy", 11),
        Z("UseZGC", "ZGC Minor Cycles", 25), SHENANDOAH("UseShenandoahGC", "Shenandoah Cycles", 25);

        final String flag;
        final String bean;
        final int sinceJdk;

        Collector(String flag, String bean, int sinceJdk) {
            this.flag = flag;
            this.bean = bean;
            this.sinceJdk = sinceJdk;
        }
    }

    record Case(Jdks.Jdk jdk, Collector collector) {
        @Override
        public String toString() {
            return jdk + " " + collector;
        }
    }

    static Stream<Case> cases() {
        List<Case> cases = new ArrayList<>();
        for (Jdks.Jdk jdk : Jdks.all()) {
            for (Collector collector : Collector.values()) {
                if (jdk.feature() >= collector.sinceJdk) {
                    cases.add(new Case(jdk, collector));
                }
            }
        }
        return cases.stream();
    }

    private static boolean jdkHas(Jdks.Jdk jdk, Collector collector) throws Exception {
        Process probe = new ProcessBuilder(jdk.java().toString(), "-XX:+" + collector.flag, "-version")
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        return probe.waitFor(60, TimeUnit.SECONDS) && probe.exitValue() == 0;
    }

    private static JsonNode run(String... args) {
        Result result = CliRun.run(args);
        assertEquals(0, result.exit(), result.toString());
        assertEquals("", result.err());
        return Json.parse(result.out());
    }

    @ParameterizedTest
    @MethodSource("cases")
    void eventSessionsGiveTheSameResultsAndCountTheCollections(Case c) throws Exception {
        assumeTrue(jdkHas(c.jdk(), c.collector()), c.jdk() + " has no " + c.collector());
        try (TargetJvm target = TargetJvm.start(c.jdk(), CollectorsTarget.class, List.of("-XX:+" + c.collector().flag, "-Xmx32m"))) {
            String pid = Long.toString(target.pid());
            assertTrue(List.of(target.ask("gc").split(",")).contains(c.collector().bean), "the target runs " + c.collector());

            JsonNode alloc = run("alloc", pid, "--duration", "1500ms", "--interval", "64k", "--json");
            assertEquals(MARKER, alloc.path("classes").get(0).path("className").asText(), alloc.toString());
            assertTrue(alloc.path("sites").get(0).path("site").asText().startsWith(CollectorsTarget.class.getName() + ".churn:"), alloc.toString());
            assertTrue(alloc.path("gcs").asLong() > 0, "GarbageCollectionFinish delivered: " + alloc.path("gcs"));

            JsonNode contention = run("contention", pid, "--duration", "1500ms", "--json");
            JsonNode top = contention.path("monitors").get(0);
            assertEquals(LOCK + "@" + target.ask("hash"), top.path("monitor").asText(), contention.toString());
            assertTrue(top.path("threads").findValuesAsText("thread").stream().anyMatch(t -> t.startsWith("contender-")), contention.toString());

            JsonNode jit = run("jit", pid, "--class", CollectorsTarget.class.getName(), "--json");
            assertTrue(jit.path("compiled").size() > 0, "the target's compiled methods: " + jit);

            assertTrue(target.process().isAlive(), "no crash");
            List<String> warnings = target.stderr().stream().filter(l -> !DYNAMIC_LOAD_NOTICE.matcher(l).find()).toList();
            assertEquals(List.of(), warnings, "nothing on the target's stderr but the notice of a dynamically loaded agent");
        }
    }
}
