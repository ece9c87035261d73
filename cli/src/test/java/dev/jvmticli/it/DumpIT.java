package dev.jvmticli.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.jvmticli.targets.LocksTarget;
import dev.jvmticli.testing.CliRun;
import dev.jvmticli.testing.CliRun.Result;
import dev.jvmticli.testing.Jdks;
import dev.jvmticli.testing.Json;
import dev.jvmticli.testing.TargetJvm;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** `dump`: the files of an incident, the manifest, the summary, and what a dump cut short leaves. */
class DumpIT {
    @TempDir
    Path work;

    private static Set<String> filesUnder(Path root) throws IOException {
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(Files::isRegularFile).map(p -> root.relativize(p).toString()).collect(Collectors.toCollection(TreeSet::new));
        }
    }

    private static Set<String> listed(Path root) throws IOException {
        Set<String> files = new TreeSet<>();
        Json.parse(Files.readString(root.resolve("index.json"))).path("files").forEach(f -> files.add(f.path("file").asText()));
        return files;
    }

    /**
     * A busiest.txt against the two readings the dump wrote (threads.json of the round and of the next): its span
     * is the agent's own, from the start of the first reading's CPU reads to the start of the second's (their
     * cpuRead stamps); each Java thread's CPU_MS is the difference of the kernel's counts, which were read between
     * the stamps, so no more than from the first reading's start to the second's end; its CPU% that difference
     * over the span.
     */
    private static void assertBusiestIsTheReadingsDifference(String busiest, long spanMillis, String before, String after) {
        JsonNode first = Json.parse(before);
        JsonNode second = Json.parse(after);
        long firstStart = first.path("cpuRead").path("startNanos").asLong();
        long secondStart = second.path("cpuRead").path("startNanos").asLong();
        long secondEnd = second.path("cpuRead").path("endNanos").asLong();
        assertTrue(firstStart > 0 && secondStart > firstStart && secondEnd >= secondStart, "the agent's stamps:\n" + before + "\n" + after);
        long spanNanos = secondStart - firstStart;
        assertEquals(spanNanos / 1_000_000, spanMillis, "the span printed is the agent's, from reading to reading:\n" + busiest);
        Map<Long, Long> cpuBefore = cpuNanosById(first);
        Map<Long, Long> cpuAfter = cpuNanosById(second);
        List<String> rows = busiest.lines().filter(l -> l.matches("\\s*\\d+ +java .*")).toList();
        assertFalse(rows.isEmpty(), busiest);
        for (String row : rows) {
            String[] columns = row.trim().split("\\s+");
            long id = Long.parseLong(columns[0]);
            double percent = Double.parseDouble(columns[3]);
            long cpuNanos = cpuAfter.get(id) - cpuBefore.getOrDefault(id, 0L);
            assertEquals(cpuNanos / 1_000_000, Long.parseLong(columns[4]), "thread #" + id + ":\n" + busiest);
            assertTrue(cpuNanos <= secondEnd - firstStart, "thread #" + id + " ran no longer than its reads allow:\n" + busiest);
            assertEquals(100.0 * cpuNanos / spanNanos, percent, 0.05 + 1e-9, "thread #" + id + "'s CPU% is its CPU over the span:\n" + busiest);
        }
    }

    private static Map<Long, Long> cpuNanosById(JsonNode threadsJson) {
        Map<Long, Long> cpu = new HashMap<>();
        threadsJson.path("threads").forEach(t -> cpu.put(t.path("id").asLong(), t.path("cpuNanos").asLong()));
        return cpu;
    }

    @Test
    void dumpsEveryRoundWithAManifestASummaryAndAZip() throws Exception {
        long runMillis;
        Path out = work.resolve("incident");
        long spinner;
        try (TargetJvm target = TargetJvm.start(Jdks.current(), LocksTarget.class)) {
            spinner = Long.parseLong(target.ask("spin").replace("spinning ", ""));
            long started = System.nanoTime();
            Result result = CliRun.run("dump", Long.toString(target.pid()), "--out", out.toString(), "--count", "2", "--interval", "1500ms", "--zip");
            runMillis = (System.nanoTime() - started) / 1_000_000;
            assertEquals(0, result.exit(), result.toString());
            Result again = CliRun.run("dump", Long.toString(target.pid()), "--out", out.toString(), "--count", "1");
            assertEquals(2, again.exit(), "a second dump into the same directory would mix two runs' files: " + again);
            assertEquals("jvmti-cli: " + out + " is not empty: dump writes into a new or empty directory\nTry 'jvmti-cli dump --help'.\n", again.err());
        }
        Set<String> files = filesUnder(out);
        Set<String> expected = new TreeSet<>(Set.of("index.json", "jvm.json", "jvm.txt", "summary.md", "pauses/pauses.txt", "pauses/pauses.json",
                "contention/contention.txt", "contention/contention.json"));
        for (String round : new String[] {"round-001/", "round-002/"}) {
            for (String file : new String[] {"threads.txt", "threads.json", "stacks.txt", "stacks.json", "monitors.txt", "monitors.json",
                    "deadlocks.txt", "deadlocks.json", "busiest.txt", "memory.txt", "memory.json"}) {
                expected.add(round + file);
            }
        }
        assertEquals(expected, files);
        Set<String> listed = listed(out);
        listed.add("index.json");
        assertEquals(files, listed, "the manifest lists every file");

        String summary = Files.readString(out.resolve("summary.md"));
        assertTrue(summary.contains("## Deadlocks\n- round 1: "), summary);
        assertEquals(6, summary.split("-> back to the first", -1).length - 1, "3 deadlocks in each of 2 rounds:\n" + summary);
        assertTrue(summary.contains("| `<0x") && summary.contains("| `holder` #"), summary);
        String stuck = summary.substring(summary.indexOf("## Threads BLOCKED in every round"));
        assertTrue(stuck.contains("`contender-1` #") && stuck.contains("`mon-dl-a` #"), stuck);
        assertFalse(stuck.contains("holder"), stuck);
        String contended = summary.substring(summary.indexOf("## Locks most threads wait on"), summary.indexOf("## Busiest threads"));
        assertFalse(contended.contains("ConditionObject"), "an idle pool awaiting its condition does not contend:\n" + contended);
        assertTrue(contended.lines().filter(l -> l.startsWith("| `<0x")).findFirst().orElseThrow().endsWith("| `holder` #"
                + contended.replaceAll("(?s).*`holder` #(\\d+).*", "$1") + " | 3 | 3 |"), "the hot monitor ranks first:\n" + contended);
        String groups = summary.substring(summary.indexOf("## Largest groups"), summary.indexOf("## Threads BLOCKED"));
        String idle = groups.lines().filter(l -> l.startsWith("| " + LocksTarget.IDLE_WORKERS + " | WAITING | ")).findFirst().orElseThrow();
        assertTrue(idle.matches(".*\\| `[^`]+` \\(frame \\d+\\) \\| `idle-worker-\\d+` #\\d+.* \\|$")
                        && !idle.contains("`jdk.internal.misc.Unsafe.park(Native Method)` (frame 0) |"),
                "the frame that tells the idle pool apart from the other parked threads, and its threads:\n" + groups);
        String busiest = summary.substring(summary.indexOf("## Busiest threads"), summary.indexOf("## Stacks of the busiest"));
        // the agent's thread and its contention recording's helpers (the monitors' owner look-ups, the parks' owner reads)
        assertTrue((busiest + groups).lines().filter(l -> l.startsWith("| "))
                        .noneMatch(l -> l.contains("`jvmti-cli agent`") || l.contains("`jvmti-cli contention`") || l.contains("`jvmti-cli park owners`")),
                "the tool's own threads are in no row of the target's:\n" + busiest + groups);
        assertTrue(busiest.matches(
                        "(?s).*The agent's own threads, `jvmti-cli agent` #\\d+, `jvmti-cli contention` #\\d+, `jvmti-cli park owners` #\\d+, busy with this dump.*"),
                busiest);
        // the summary's table is round 1's, measured from its CPU reading to round 2's: the whole --interval (the wait
        // starts after the first reading and ends at the deadline, never a fraction of a millisecond short), within
        // the dump's own run
        Matcher span = Pattern.compile("## Busiest threads \\(round 1 to round 2, over (\\d+) ms\\)\n").matcher(busiest);
        assertTrue(span.lookingAt(), busiest);
        long spanMillis = Long.parseLong(span.group(1));
        assertTrue(spanMillis >= 1500 && spanMillis < runMillis, "within 1500 ms and the run's " + runMillis + " ms:\n" + busiest);
        String firstBusiest = Files.readString(out.resolve("round-001/busiest.txt"));
        assertTrue(firstBusiest.startsWith("CPU over " + span.group(1) + " ms:\n"), "the summary's span is round 1's measured one:\n" + firstBusiest);
        // a thread on a CPU throughout: its CPU% tells a span printed apart from the one measured
        assertTrue(firstBusiest.lines().anyMatch(l -> l.matches(" *" + spinner + " +java +\\d+ +[\\d.]+ +[1-9]\\d* +RUNNABLE +spinner")),
                "the spinner ran over the span:\n" + firstBusiest);
        assertBusiestIsTheReadingsDifference(firstBusiest, spanMillis, Files.readString(out.resolve("round-001/threads.json")),
                Files.readString(out.resolve("round-002/threads.json")));
        String lastBusiest = Files.readString(out.resolve("round-002/busiest.txt"));
        Matcher lastSpan = Pattern.compile("The last round: measured over a wait of at most a second after its threads, not over --interval.\nCPU over (\\d+) ms:\n")
                .matcher(lastBusiest);
        assertTrue(lastSpan.lookingAt(), lastBusiest);
        long lastSpanMillis = Long.parseLong(lastSpan.group(1));
        assertTrue(lastSpanMillis >= 1000 && lastSpanMillis < runMillis, "a wait of a second, within the run's " + runMillis + " ms:\n" + lastBusiest);
        assertTrue(summary.contains("## Stacks of the busiest Java threads (round 1)\n"), summary);

        assertTrue(Files.readString(out.resolve("round-002/stacks.txt")).contains("Full thread dump"));
        String stacks = Files.readString(out.resolve("round-001/stacks.txt"));
        String helper = stacks.lines().filter(l -> l.startsWith("\"jvmti-cli contention\" #")).findFirst().orElseThrow();
        assertTrue(helper.contains(" (jvmti-cli agent)"), "the contention recording's helper is the agent's: " + helper);
        assertTrue(stacks.contains("   Locked ownable synchronizers:"));
        assertFalse(stacks.contains("\t- None"), "dump does not walk the heap, so it never says None");
        assertTrue(stacks.contains("\t- (not known: only those some thread is parked on: dump does not walk the heap, stacks -l does)\n"), stacks);
        JsonNode jvm = Json.parse(Files.readString(out.resolve("jvm.json")));
        assertTrue(jvm.path("vm").path("uptimeMillis").asLong() > 0);
        assertTrue(jvm.path("vm").path("properties").path("java.vm.name").asText().contains("VM"));
        assertTrue(jvm.path("vm").path("flags").has("MaxHeapSize"));
        assertTrue(jvm.path("hello").path("capabilities").size() > 0);
        assertEquals(3, Json.parse(Files.readString(out.resolve("round-001/deadlocks.json"))).path("count").asInt());

        try (ZipFile zip = new ZipFile(work.resolve("incident.zip").toFile())) {
            assertEquals(files.size(), zip.size());
            assertTrue(zip.getEntry("incident/summary.md") != null);
        }
    }

    @Test
    void aDumpCutShortByTheTargetsDeathLeavesOnlyWholeListedFiles() throws Exception {
        Path out = work.resolve("cut");
        TargetJvm target = TargetJvm.start(Jdks.current(), LocksTarget.class);
        CompletableFuture<Result> dump = CompletableFuture.supplyAsync(() ->
                CliRun.run("dump", Long.toString(target.pid()), "--out", out.toString(), "--count", "20", "--interval", "1s"));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!(Files.exists(out.resolve("index.json")) && listed(out).contains("round-001/busiest.txt")) && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        target.close();
        Result result = dump.get(30, TimeUnit.SECONDS);
        assertTrue(result.exit() == 9 || result.exit() == 3, result.toString());
        assertEquals(1, result.err().lines().count(), result.err());
        Set<String> files = filesUnder(out);
        Set<String> listed = listed(out);
        listed.add("index.json");
        assertEquals(files, listed, "no partial or temporary file, and the manifest lists exactly what is there");
        assertFalse(Json.parse(Files.readString(out.resolve("index.json"))).path("errors").isEmpty());
    }
}
