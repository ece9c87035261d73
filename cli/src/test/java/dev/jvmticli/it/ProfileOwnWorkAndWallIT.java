package dev.jvmticli.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.jvmticli.analysis.Profile;
import dev.jvmticli.analysis.ProfileSplit;
import dev.jvmticli.client.AgentClient;
import dev.jvmticli.client.ProfileReport;
import dev.jvmticli.payload.AgentLibrary;
import dev.jvmticli.targets.VirtualThreadsTarget;
import dev.jvmticli.targets.WallTarget;
import dev.jvmticli.testing.AgentProbe;
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
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A profile is the target's: the tool's own work (its agent thread, the VM operations it asks for)
 * is counted apart and left out, as async-profiler's own stacks show it; and a wall-clock profile
 * says what each thread did, and what it cannot see (unmounted virtual threads).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ProfileOwnWorkAndWallIT {
    private static final String TIMEOUT = "--timeout=60s";
    private static final String TARGET = WallTarget.class.getName() + ".";
    /** The frames of a class histogram's heap walk: in the VM thread, and in the GC workers it hands the walk to. */
    private static final Predicate<String> HISTOGRAM_LINE = l -> l.contains("VM_GC_HeapInspection::doit") || l.contains("ParHeapInspectTask::work");

    private final Map<Jdks.Jdk, TargetJvm> targets = new HashMap<>();

    @TempDir
    Path temp;

    Stream<Jdks.Jdk> jdks() {
        return Jdks.stream();
    }

    @BeforeAll
    void start() {
        Jdks.all().forEach(jdk -> targets.put(jdk, TargetJvm.start(jdk, WallTarget.class, List.of("-Xmx512m")).profiled()));
    }

    @AfterAll
    void stop() {
        targets.values().forEach(TargetJvm::close);
    }

    private static long sum(List<String> collapsed, Predicate<String> line) {
        return collapsed.stream().filter(line).mapToLong(l -> Long.parseLong(l.substring(l.lastIndexOf(' ') + 1))).sum();
    }

    /**
     * A profile of this test's own connection (1 ms of CPU time a sample) while the CLI takes three
     * class histograms and a thread dump: async-profiler's raw stacks are the truth. Every sample of the
     * agent's thread, and every histogram sample of the VM thread and the GC workers (the target takes
     * none of its own), is the tool's; the rest is the target's, and the parts add up to the raw total.
     */
    @ParameterizedTest
    @MethodSource("jdks")
    void theToolsOwnSamplesAreCountedApartAsAsyncProfilersStacksShowThem(Jdks.Jdk jdk) throws Exception {
        long pid = targets.get(jdk).pid();
        assertEquals(0, CliRun.run("threads", Long.toString(pid)).exit(), "the agent is resident, for the probe");
        ProfileReport raw;
        try (AgentClient client = AgentProbe.open(pid)) {
            client.call("profile.start", Map.of("library", AgentLibrary.profiler().extract().toString(), "event", "cpu",
                    "interval", 1_000_000), JsonNode.class);
            for (int i = 0; i < 3; i++) {
                Result heap = CliRun.run("heap", TIMEOUT, Long.toString(pid), "--top", "3");
                assertEquals(0, heap.exit(), heap.toString());
            }
            assertEquals(0, CliRun.run("stacks", TIMEOUT, Long.toString(pid)).exit());
            raw = client.call("profile.stop", Map.of(), ProfileReport.class);
        }
        long agentTid = raw.ownWork().agentTid();
        long rawAgent = sum(raw.collapsed(), l -> l.startsWith("[") && l.substring(0, l.indexOf(']') + 1).endsWith("tid=" + agentTid + "]"));
        long rawHistogram = sum(raw.collapsed(), HISTOGRAM_LINE);
        long rawTotal = sum(raw.collapsed(), l -> true);
        ProfileSplit split = ProfileSplit.of(Profile.parse(raw.collapsed()), raw.ownWork());
        System.out.printf("JDK %d: %d samples, %d of the agent thread, %d of histograms; split: %d agent, %d VM operations %s, %d requests%n",
                jdk.feature(), rawTotal, rawAgent, rawHistogram, split.agentThread().samples(), split.vmOperations().samples(),
                split.operations(), split.requests());

        assertTrue(rawHistogram > 0, "three histograms of " + WallTarget.OBJECTS + " objects were sampled at 1 ms: " + raw.collapsed());
        assertTrue(split.requests() >= 4, "the CLI's heap and stacks requests were seen: " + split.requests());
        assertEquals(rawAgent, split.agentThread().samples(), "every sample of the agent thread is the tool's");
        long histogramOwn = split.vmOperations().stacks().stream().filter(s -> HISTOGRAM_LINE.test(frames(s)))
                .mapToLong(Profile.Stack::samples).sum();
        assertEquals(rawHistogram, histogramOwn, "every histogram sample is the tool's: " + split.operations());
        assertEquals(rawTotal, split.target().samples() + split.ownSamples(), "the parts add up to async-profiler's samples");
        assertEquals(0, split.lostSamples());
        assertEquals(0, split.unreadRequests());
        for (Profile.Stack stack : split.target().stacks()) {
            assertFalse(stack.tid() == agentTid || HISTOGRAM_LINE.test(frames(stack)), "a tool's stack left as the target's: " + frames(stack));
        }
        assertTrue(split.target().stacks().stream().anyMatch(s -> frames(s).contains(TARGET + "spin")), "the target's own work stays");
    }

    private static String frames(Profile.Stack stack) {
        return String.join(";", stack.frames().stream().map(Profile.Frame::name).toList());
    }

    /** dump --profile --heap: its own histograms and requests are left out of summary.md and profile.txt, and labelled in the graph. */
    @ParameterizedTest
    @MethodSource("jdks")
    void dumpsSummaryLeavesItsOwnHistogramsAndAgentThreadOut(Jdks.Jdk jdk) throws Exception {
        Path out = temp.resolve("dump-" + jdk.feature());
        Result result = CliRun.run("dump", TIMEOUT, Long.toString(targets.get(jdk).pid()), "--out", out.toString(), "--count", "2",
                "--interval", "1s", "--profile", "2s", "--heap");
        assertEquals(0, result.exit(), result.toString());
        String summary = Files.readString(out.resolve("summary.md"));
        String hottest = summary.substring(summary.indexOf("## Hottest methods (CPU profile, "));
        assertTrue(hottest.contains("jvmti-cli's own work, left out: "), hottest);
        // the tables' rows, and profile.txt's after its own-work line
        String tables = String.join("\n", hottest.lines().filter(l -> l.startsWith("|")).toList());
        String profileTxt = Files.readString(out.resolve("profile/profile.txt"));
        String profileTables = profileTxt.substring(profileTxt.indexOf("\n\n") + 2);
        // the agent's thread, and its dump's contention, park owner reads and pauses helpers, which run beside the profile
        for (String own : List.of("HeapInspection", "RecordInstanceClosure", "ParHeapInspectTask", "jvmti-cli agent", "jvmti-cli contention",
                "jvmti-cli park owners", "jvmti-cli pause")) {
            assertFalse(tables.contains(own), own + " in the summary's profile tables: " + hottest);
            assertFalse(profileTables.contains(own), own + " in profile.txt: " + profileTxt);
        }
        for (String line : Files.readAllLines(out.resolve("profile/collapsed.txt"))) {
            if (HISTOGRAM_LINE.test(line) || line.contains("[jvmti-cli agent tid=") || line.contains("[jvmti-cli contention tid=")
                    || line.contains("[jvmti-cli park owners tid=") || line.contains("[jvmti-cli pause tid=")) {
                assertTrue(line.startsWith(ProfileSplit.OWN_WORK_FRAME + ";"), "a tool's stack not labelled: " + line);
            }
        }
    }

    private static JsonNode thread(JsonNode doc, String name) {
        for (JsonNode t : doc.path("wallThreads")) {
            if (t.path("name").asText().equals(name)) {
                return t;
            }
        }
        throw new AssertionError("no thread " + name + " in " + doc.path("wallThreads"));
    }

    /** Each thread of WallTarget doing what it does: running, or waiting where, not an equal share each. */
    @ParameterizedTest
    @MethodSource("jdks")
    void wallSaysWhatEachThreadDidRunningOrWaitingWhere(Jdks.Jdk jdk) {
        String pid = Long.toString(targets.get(jdk).pid());
        Result json = CliRun.run("profile", TIMEOUT, pid, "--event", "wall", "--duration", "2s", "--interval", "20ms", "--json");
        assertEquals(0, json.exit(), json.toString());
        JsonNode doc = Json.parse(json.out());
        JsonNode running = thread(doc, "running");
        assertTrue(running.path("running").asLong() >= 0.9 * running.path("samples").asLong(), running.toString());
        assertEquals(TARGET + "spin", running.path("mostlyWhere").asText(), running.toString());
        Map<String, String> waits = Map.of("sleeping", "java.lang.Thread.sleep", "lock-waiter", TARGET + "enterHeld",
                "parked", "jdk.internal.misc.Unsafe.park", "lock-holder", "java.lang.Thread.sleep");
        Map<String, String> callers = Map.of("sleeping", TARGET + "sleepForever", "lock-waiter", TARGET + "enterHeld",
                "parked", TARGET + "parkForever", "lock-holder", TARGET + "sleepForever");
        waits.forEach((name, where) -> {
            JsonNode t = thread(doc, name);
            assertTrue(t.path("waiting").asLong() >= 0.9 * t.path("samples").asLong() && t.path("samples").asLong() > 0, t.toString());
            assertEquals("WAITING", t.path("mostlyState").asText(), t.toString());
            assertTrue(t.path("mostlyWhere").asText().startsWith(where) && t.path("mostlyWhere").asText().endsWith(callers.get(name)),
                    t.toString());
        });
        assertFalse(doc.path("wallThreads").toString().contains("jvmti-cli agent"), "the agent thread is the tool's");

        Result text = CliRun.run("profile", TIMEOUT, pid, "--event", "wall", "--duration", "1s", "--interval", "20ms");
        assertEquals(0, text.exit(), text.toString());
        assertTrue(text.out().contains("What each thread did (running the most first):") && text.out().contains("Where threads waited")
                && !text.out().contains("Busiest threads"), text.out());
        assertFalse(text.out().contains("virtual thread"), "WallTarget has no virtual threads: " + text.out());
    }

    /** Virtual threads parked or sleeping unmounted: wall-clock sampling cannot see them, and the report says so. */
    @Test
    void wallSaysHowManyVirtualThreadsItCouldNotSee() {
        Jdks.Jdk jdk = Jdks.atLeast(21).orElse(null);
        org.junit.jupiter.api.Assumptions.assumeTrue(jdk != null, "virtual threads need JDK 21+");
        try (TargetJvm target = TargetJvm.start(jdk, VirtualThreadsTarget.class, List.of()).profiled()) {
            String pid = Long.toString(target.pid());
            Result text = CliRun.run("profile", TIMEOUT, pid, "--event", "wall", "--duration", "1s");
            assertEquals(0, text.exit(), text.toString());
            String line = text.out().lines().filter(l -> l.startsWith("The target had ")).findFirst().orElseThrow(() -> new AssertionError(text.out()));
            long count = Long.parseLong(line.substring("The target had ".length(), line.indexOf(' ', "The target had ".length())));
            assertTrue(count >= VirtualThreadsTarget.SLEEPERS, line);
            assertTrue(line.contains("which wall-clock sampling cannot see") && line.endsWith("jvmti-cli stacks " + pid + " --virtual --group"), line);
            Result json = CliRun.run("profile", TIMEOUT, pid, "--event", "wall", "--duration", "1s", "--json");
            assertEquals(0, json.exit(), json.toString());
            assertTrue(Json.parse(json.out()).path("virtualThreads").path("unmountedNotSampled").asLong() >= VirtualThreadsTarget.SLEEPERS,
                    json.out());
        }
    }
}
