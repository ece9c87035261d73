package dev.jvmticli.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.jvmticli.client.AgentClient;
import dev.jvmticli.client.AgentError;
import dev.jvmticli.targets.ContentionTarget;
import dev.jvmticli.testing.AgentProbe;
import dev.jvmticli.testing.CliRun;
import dev.jvmticli.testing.CliRun.Result;
import dev.jvmticli.testing.Jdks;
import dev.jvmticli.testing.Json;
import dev.jvmticli.testing.TargetJvm;
import dev.jvmticli.testing.TargetsPerJdk;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** `contention` against a target with a known contended monitor, its contenders and its holder, on every installed JDK. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ContentionIT {
    static final String CAPABILITY = "can_generate_monitor_events";
    static final String LOCK = "dev.jvmticli.targets.ContentionTarget$Lock";

    @RegisterExtension
    static final TargetsPerJdk targets = TargetsPerJdk.of(ContentionTarget.class);

    Stream<Jdks.Jdk> jdks() {
        return Jdks.stream();
    }

    @ParameterizedTest
    @MethodSource("jdks")
    void theMonitorItsContendersAndItsHolder(Jdks.Jdk jdk) {
        TargetJvm target = targets.get(jdk);
        String hash = target.ask("hash");
        Result result = CliRun.run("contention", Long.toString(target.pid()), "--duration", "1500ms", "--json", "--by-thread");
        assertEquals(0, result.exit(), result.toString());
        JsonNode doc = Json.parse(result.out());
        JsonNode top = doc.path("monitors").get(0);
        assertEquals(LOCK + "@" + hash, top.path("monitor").asText(), result.out());
        assertTrue(top.path("enters").asLong() >= 4, result.out());
        assertTrue(top.path("blockedNanos").asLong() > 10_000_000L, "contenders wait behind a 50 ms hold: " + result.out());
        List<String> waiting = top.path("threads").findValuesAsText("thread");
        assertTrue(waiting.containsAll(List.of("contender-1", "contender-2")), waiting.toString());
        assertEquals("holder", top.path("holders").get(0).path("thread").asText(), result.out());

        JsonNode site = null;
        for (JsonNode row : doc.path("sites")) {
            assertEquals(1, row.path("threads").size(), "one thread a row with --by-thread: " + row);
            site = row.path("threads").get(0).path("thread").asText().equals("contender-1") ? row : site;
        }
        assertTrue(site != null, doc.toString());
        assertEquals(LOCK + "@" + hash, site.path("monitor").asText());
        assertTrue(site.path("frames").get(0).asText().startsWith("dev.jvmticli.targets.ContentionTarget.contend:"), site.toString());

        List<String> capabilities = AgentProbe.capabilities(target.pid());
        assertFalse(capabilities.contains(CAPABILITY), "capability relinquished at stop: " + capabilities);
        assertFalse(capabilities.isEmpty());
    }

    @ParameterizedTest
    @MethodSource("jdks")
    void tableAndFlameGraphWeightedByBlockedTime(Jdks.Jdk jdk, @TempDir Path dir) throws Exception {
        TargetJvm target = targets.get(jdk);
        Path page = dir.resolve("contention.html");
        Result table = CliRun.run("contention", Long.toString(target.pid()), "--duration", "1s", "--html", page.toString());
        assertEquals(0, table.exit(), table.toString());
        assertTrue(table.out().contains("Contended monitors:"), table.out());
        // the cell names the five waiting threads with the most enters: contenders or pool threads alike
        assertTrue(table.out().lines().anyMatch(l -> l.contains(LOCK + "@") && l.contains("holder (")
                && Pattern.compile("(contender|pool)-\\d+ \\(\\d+\\)").matcher(l).find()), table.out());
        assertTrue(table.out().startsWith("wrote " + page + "\n"), table.out());
        assertTrue(Files.readString(page).contains("ContentionTarget.contend"));

        Result collapsed = CliRun.run("contention", Long.toString(target.pid()), "--duration", "1s", "--collapsed");
        assertEquals(0, collapsed.exit(), collapsed.toString());
        long contenderWeight = 0;
        for (String line : collapsed.out().split("\n")) {
            assertTrue(line.matches("\\[[^;]+\\](;[^;]+)+ \\d+"), "collapsed line: " + line);
            if (line.startsWith("[contender-1];") && line.contains(";dev.jvmticli.targets.ContentionTarget.contend;" + LOCK + "@")) {
                contenderWeight += Long.parseLong(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        assertTrue(contenderWeight > 1_000_000L, "weighted by nanoseconds blocked: " + collapsed.out());
    }

    @ParameterizedTest
    @MethodSource("jdks")
    void sitesAreGroupedAndEveryCellIsBounded(Jdks.Jdk jdk) {
        TargetJvm target = targets.get(jdk);
        Result result = CliRun.run("contention", Long.toString(target.pid()), "--duration", "1500ms");
        assertEquals(0, result.exit(), result.toString());
        String sites = result.out().substring(result.out().indexOf("Where threads blocked:"));
        List<String> rows = sites.lines().skip(2).toList();
        // one row per line the JVM reports: compiled and interpreted frames of the same monitorenter
        // have been seen to name either line of the synchronized block; when contend() is compiled
        // during the window (later on a loaded machine, whose compiler threads wait for the CPU too),
        // the row of the later code lacks the threads that did not block again before the end
        List<String> hotRows = rows.stream().filter(r -> r.contains(LOCK + "@") && r.contains("ContentionTarget.contend:")).toList();
        assertTrue(!hotRows.isEmpty() && hotRows.size() <= 2 && hotRows.stream().anyMatch(r -> r.contains((2 + ContentionTarget.POOL) + ": ")),
                "the twelve threads that block at contend() are grouped, a row for each line, not for each thread:\n" + sites);
        assertTrue(rows.stream().anyMatch(r -> r.contains("$Side@") && r.contains("ContentionTarget.contendSide:")),
                "the second contended monitor is not hidden behind the first one's threads:\n" + sites);
        String hot = rows.stream().filter(r -> r.contains(LOCK + "@")).findFirst().orElseThrow();
        assertTrue(hot.contains((2 + ContentionTarget.POOL) + ": ") && hot.contains(", and " + (2 + ContentionTarget.POOL - 5) + " more"), hot);
        String monitors = result.out().substring(result.out().indexOf("Contended monitors:"), result.out().indexOf("Where threads blocked:"));
        // "holder" takes the lock again 2 ms after letting it go, and blocks too when a contender has it then
        int waiters = 2 + ContentionTarget.POOL + (rows.stream().anyMatch(r -> r.contains(LOCK + "@") && r.contains("ContentionTarget.hold:")) ? 1 : 0);
        assertTrue(monitors.lines().filter(l -> l.contains(LOCK + "@")).allMatch(l -> l.contains(", and " + (waiters - 5) + " more")), monitors + sites);

        JsonNode doc = Json.parse(CliRun.run("contention", Long.toString(target.pid()), "--duration", "1500ms", "--json").out());
        JsonNode first = doc.path("sites").get(0);
        assertEquals(2 + ContentionTarget.POOL, first.path("threads").size(), "JSON lists every thread: " + first);
    }

    /** A site in the JDK (StringBuffer.append) says which application frame led to it, as alloc's sites do. */
    @ParameterizedTest
    @MethodSource("jdks")
    void aJdkSiteNamesTheApplicationFrameThatCalledIt(Jdks.Jdk jdk) {
        TargetJvm target = targets.get(jdk);
        String caller = "dev.jvmticli.targets.ContentionTarget.appendToBuffer:";
        Result table = CliRun.run("contention", Long.toString(target.pid()), "--duration", "1500ms");
        assertEquals(0, table.exit(), table.toString());
        String sites = table.out().substring(table.out().indexOf("Where threads blocked:"));
        assertTrue(Pattern.compile("java\\.lang\\.StringBuffer@\\p{XDigit}+ +1: buffer-contender \\(\\d+\\) +java\\.lang\\.StringBuffer\\.append:\\d+ <- "
                + Pattern.quote(caller) + "\\d+").matcher(sites).find(), sites);
        assertTrue(sites.lines().filter(l -> l.contains("ContentionTarget.contend:")).noneMatch(l -> l.contains(" <- ")),
                "a site in application code is its own:\n" + sites);

        JsonNode doc = Json.parse(CliRun.run("contention", Long.toString(target.pid()), "--duration", "1500ms", "--json").out());
        JsonNode buffer = null;
        for (JsonNode row : doc.path("sites")) {
            buffer = row.path("monitor").asText().startsWith("java.lang.StringBuffer@") ? row : buffer;
        }
        assertTrue(buffer != null, doc.toString());
        assertTrue(buffer.path("frames").get(0).asText().startsWith("java.lang.StringBuffer.append:"), buffer.toString());
        assertTrue(buffer.path("applicationFrame").asText().startsWith(caller), buffer.toString());
    }

    /** Two engines of the one session machinery at once: each its own busy and owner, each ended with its client. */
    @ParameterizedTest
    @MethodSource("jdks")
    void runsBesideAllocationSamplingAndEndsWithItsClient(Jdks.Jdk jdk) throws Exception {
        long pid = targets.get(jdk).pid();
        CliRun.run("threads", Long.toString(pid)); // the agent is resident
        try (AgentClient owner = AgentProbe.open(pid)) {
            owner.call("contention.start", Map.of(), JsonNode.class);
            owner.call("alloc.start", Map.of(), JsonNode.class);
            List<String> held = AgentProbe.capabilities(pid);
            assertTrue(held.contains(CAPABILITY) && held.contains(AllocIT.CAPABILITY), held.toString());
            try (AgentClient other = AgentProbe.open(pid)) {
                AgentError busy = assertThrows(AgentError.class, () -> other.call("contention.start", Map.of(), JsonNode.class));
                assertEquals("busy", busy.code());
                assertTrue(busy.agentMessage().contains("contention profiling is already running for another client"), busy.agentMessage());
                AgentError notOwner = assertThrows(AgentError.class, () -> other.call("contention.stop", Map.of(), JsonNode.class));
                assertEquals("not_owner", notOwner.code());
            }
            JsonNode allocReport = owner.call("alloc.stop", Map.of(), JsonNode.class);
            assertTrue(allocReport.has("samples"), allocReport.toString());
            held = AgentProbe.capabilities(pid);
            assertTrue(held.contains(CAPABILITY) && !held.contains(AllocIT.CAPABILITY), "alloc stopped, contention runs on: " + held);
        } // the owner disconnects without stopping contention: the agent stops it
        assertFalse(AgentProbe.awaitCapability(pid, CAPABILITY, false).contains(CAPABILITY), "given back when the client went away");
        try (AgentClient later = AgentProbe.open(pid)) {
            AgentError none = assertThrows(AgentError.class, () -> later.call("contention.stop", Map.of(), JsonNode.class));
            assertEquals("not_running", none.code());
        }
    }
}
