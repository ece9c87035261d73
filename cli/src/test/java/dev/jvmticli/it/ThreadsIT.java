package dev.jvmticli.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.jvmticli.targets.ThreadsTarget;
import dev.jvmticli.testing.CliRun;
import dev.jvmticli.testing.CliRun.Result;
import dev.jvmticli.testing.Jdks;
import dev.jvmticli.testing.Json;
import dev.jvmticli.testing.Proc;
import dev.jvmticli.testing.TargetJvm;
import dev.jvmticli.testing.TargetsPerJdk;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** `threads`, `detach` and reuse of the resident agent against real targets on every installed JDK. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ThreadsIT {
    @RegisterExtension
    static final TargetsPerJdk targets = TargetsPerJdk.of(ThreadsTarget.class);

    Stream<Jdks.Jdk> jdks() {
        return Jdks.stream();
    }

    private static JsonNode threadsJson(TargetJvm target) {
        Result result = CliRun.run("threads", Long.toString(target.pid()), "--json");
        assertEquals(0, result.exit(), result.toString());
        return Json.parse(result.out()).path("threads");
    }

    @ParameterizedTest
    @MethodSource("jdks")
    void threadSetEqualsTheTargetsOwnView(Jdks.Jdk jdk) {
        TargetJvm target = targets.get(jdk);
        Map<Long, String> ours = null;
        Map<Long, String> theirs = null;
        for (int attempt = 0; attempt < 3; attempt++) {
            ours = new TreeMap<>();
            for (JsonNode t : threadsJson(target)) {
                if (!t.path("agent").asBoolean()) {
                    ours.put(t.path("id").asLong(), t.path("name").asText());
                }
            }
            theirs = new TreeMap<>();
            for (String entry : target.ask("threads").split(" ")) {
                String[] parts = entry.split(":");
                theirs.put(Long.parseLong(parts[0]), new String(Base64.getDecoder().decode(parts[2]), StandardCharsets.UTF_8));
            }
            if (ours.equals(theirs)) {
                break;
            }
        }
        assertEquals(theirs, ours);
    }

    @ParameterizedTest
    @MethodSource("jdks")
    void statesAndFlagsMatchWhatTheTargetBuilt(Jdks.Jdk jdk) {
        JsonNode threads = threadsJson(targets.get(jdk));
        assertState(threads, "spinner", "RUNNABLE", List.of());
        assertState(threads, "sleeper", "TIMED_WAITING", List.of("sleeping"));
        assertState(threads, "waiter", "WAITING", List.of("in_object_wait"));
        assertState(threads, "parker", "WAITING", List.of("parked"));
        assertState(threads, "blocked", "BLOCKED", List.of());
        assertState(threads, "holder", "TIMED_WAITING", List.of("sleeping"));
        JsonNode blocked = Json.find(threads, "name", "blocked").path("waitingFor");
        assertEquals("enter", blocked.path("kind").asText());
        assertEquals(Json.find(threads, "name", "holder").path("id").asLong(), blocked.path("ownerId").asLong());
        assertEquals("notify", Json.find(threads, "name", "waiter").path("waitingFor").path("kind").asText());
        assertTrue(Json.find(threads, "name", "parker").path("waitingFor").isMissingNode(), "parked without a blocker");
        JsonNode agent = Json.find(threads, "name", "jvmti-cli agent");
        assertTrue(agent.path("agent").asBoolean());
        assertTrue(agent.path("daemon").asBoolean());
        JsonNode main = Json.find(threads, "name", "main");
        assertTrue(main.path("id").asLong() > 0);
        assertEquals("main", main.path("group").asText());
        assertEquals(5, main.path("priority").asInt());
        assertFalse(main.path("daemon").asBoolean());
        assertTrue(Json.find(threads, "name", "spinner").path("nid").asLong() > 0, "native id found");
    }

    /**
     * The NID column against HotSpot's own (jstack's): equal wherever the kernel's 15-byte thread
     * name is unique; where it is not (the twins), a task of that name, a different one for each.
     */
    @ParameterizedTest
    @MethodSource("jdks")
    void nativeIdsAreTheOnesJstackPrints(Jdks.Jdk jdk) throws Exception {
        TargetJvm target = targets.get(jdk);
        Map<String, List<Long>> tasksByComm = new HashMap<>();
        try (Stream<Path> tasks = Files.list(Path.of("/proc", Long.toString(target.pid()), "task"))) {
            for (Path task : tasks.toList()) {
                String comm = new String(Files.readAllBytes(task.resolve("comm")), StandardCharsets.ISO_8859_1);
                tasksByComm.computeIfAbsent(comm.substring(0, comm.length() - 1), k -> new ArrayList<>())
                        .add(Long.parseLong(task.getFileName().toString()));
            }
        }
        Process jstack = new ProcessBuilder(jdk.home().resolve("bin/jstack").toString(), Long.toString(target.pid()))
                .redirectErrorStream(true).start();
        String dump = new String(jstack.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, jstack.waitFor(), dump);
        Map<String, Long> jstackNids = new HashMap<>();
        // nid=0x1a2b before JDK 19, nid=6699 since
        Matcher header = Pattern.compile("(?m)^\"([^\"\n]*)\" .* nid=(?:0x([0-9a-f]+)|(\\d+)) ").matcher(dump);
        while (header.find()) {
            jstackNids.put(header.group(1), header.group(2) != null ? Long.parseLong(header.group(2), 16) : Long.parseLong(header.group(3)));
        }
        int exact = 0;
        for (JsonNode thread : threadsJson(target)) {
            String name = thread.path("name").asText();
            long nid = thread.path("nid").asLong();
            List<Long> sameComm = tasksByComm.getOrDefault(name.equals("main") ? "java" : comm(name), List.of());
            if (name.equals("main") || sameComm.size() == 1) {
                if (jstackNids.containsKey(name)) {
                    assertEquals(jstackNids.get(name), nid, name);
                    exact++;
                }
            } else {
                assertTrue(sameComm.contains(nid), name + ": nid " + nid + " among " + sameComm);
            }
        }
        assertTrue(exact >= 8, exact + " threads compared with jstack");
        JsonNode threads = threadsJson(target);
        long first = Json.find(threads, "name", ThreadsTarget.TWINS[0]).path("nid").asLong();
        long second = Json.find(threads, "name", ThreadsTarget.TWINS[1]).path("nid").asLong();
        assertEquals(List.of(first, second).stream().sorted().toList(), tasksByComm.get(comm(ThreadsTarget.TWINS[0])).stream().sorted().toList());
    }

    /**
     * The kernel's name of a thread HotSpot named: the first 15 bytes of its modified UTF-8 (a
     * supplementary character is two 3-byte surrogates), one char per byte as comm files are read here.
     */
    private static String comm(String name) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        new DataOutputStream(bytes).writeUTF(name); // modified UTF-8 after a 2-byte length
        byte[] modified = bytes.toByteArray();
        return new String(modified, 2, Math.min(15, modified.length - 2), StandardCharsets.ISO_8859_1);
    }

    private static void assertState(JsonNode threads, String name, String state, List<String> flags) {
        JsonNode thread = Json.find(threads, "name", name);
        assertEquals(state, thread.path("state").asText(), name);
        assertEquals(flags, Json.texts(thread.path("flags")), name);
    }

    @ParameterizedTest
    @MethodSource("jdks")
    void aSpinningThreadShowsMoreCpuThanASleepingOne(Jdks.Jdk jdk) throws Exception {
        // how much CPU the spinner got by now is the machine's to say: the kernel's count for its nid is the measure
        Map<Long, Long> before = Proc.cpuTicksByTask(targets.get(jdk).pid());
        JsonNode threads = threadsJson(targets.get(jdk));
        Map<Long, Long> after = Proc.cpuTicksByTask(targets.get(jdk).pid());
        Map<String, Long> millis = new HashMap<>();
        for (String name : List.of("spinner", "sleeper")) {
            JsonNode thread = Json.find(threads, "name", name);
            long nid = thread.path("nid").asLong();
            long ours = thread.path("cpuNanos").asLong() / 1_000_000;
            assertTrue(ours >= before.get(nid) * VmThreadsIT.TICK_MS - VmThreadsIT.SLACK_MS && ours <= after.get(nid) * VmThreadsIT.TICK_MS
                    + VmThreadsIT.SLACK_MS, name + ": " + ours + " ms, the kernel counted " + before.get(nid) * VmThreadsIT.TICK_MS + " then "
                    + after.get(nid) * VmThreadsIT.TICK_MS);
            millis.put(name, ours);
        }
        assertTrue(millis.get("spinner") > millis.get("sleeper"), millis.toString());

        Result top = CliRun.run("threads", Long.toString(targets.get(jdk).pid()), "--top", "1", "--interval", "300ms");
        assertEquals(0, top.exit(), top.toString());
        String[] lines = top.out().split("\n");
        assertTrue(lines[2].endsWith("spinner"), top.out());

        // the span is the agent's own, from the start of its first CPU reads to the start of its second; the
        // spinner's CPU, read between the stamps, is its CPU% of that span and no more than the stamps allow
        JsonNode topJson = Json.parse(CliRun.run("threads", Long.toString(targets.get(jdk).pid()), "--top", "1", "--interval", "300ms", "--json").out());
        JsonNode reads = topJson.path("cpuReads");
        long firstStart = reads.path(0).path("startNanos").asLong();
        long secondStart = reads.path(1).path("startNanos").asLong();
        long secondEnd = reads.path(1).path("endNanos").asLong();
        assertTrue(firstStart > 0 && secondStart - firstStart >= 300_000_000L && secondEnd >= secondStart, topJson.toString());
        long spanNanos = secondStart - firstStart;
        assertEquals(spanNanos / 1_000_000, topJson.path("intervalMillis").asLong(), topJson.toString());
        JsonNode row = topJson.path("threads").path(0);
        assertEquals("spinner", row.path("thread").path("name").asText(), topJson.toString());
        long used = row.path("cpuNanosInInterval").asLong();
        assertTrue(used > 0 && used <= secondEnd - firstStart, topJson.toString());
        assertEquals(100.0 * used / spanNanos, row.path("cpuPercent").asDouble(), 1e-9, topJson.toString());
    }

    @ParameterizedTest
    @MethodSource("jdks")
    void aHostileThreadNameComesBackExactlyInJsonAndEscapedInText(Jdks.Jdk jdk) {
        TargetJvm target = targets.get(jdk);
        JsonNode weird = Json.find(threadsJson(target), "name", ThreadsTarget.WEIRD_NAME);
        assertEquals("TIMED_WAITING", weird.path("state").asText());

        Result text = CliRun.run("threads", Long.toString(target.pid()), "--name", "weird*");
        assertEquals(0, text.exit(), text.toString());
        String[] lines = text.out().split("\n", 2);
        assertTrue(lines[1].endsWith("  weird \"name\"\\\\ \uD83D\uDE80 é\\ttab\\nnewline\n"), text.out());
    }

    @ParameterizedTest
    @MethodSource("jdks")
    void filtersAndSorting(Jdks.Jdk jdk) {
        String pid = Long.toString(targets.get(jdk).pid());
        JsonNode blocked = Json.parse(CliRun.run("threads", pid, "--json", "--state", "blocked").out()).path("threads");
        assertEquals(List.of("blocked"), blocked.findValuesAsText("name"));

        JsonNode named = Json.parse(CliRun.run("threads", pid, "--json", "--name", "s?ee*").out()).path("threads");
        assertEquals(List.of("sleeper"), named.findValuesAsText("name"));

        JsonNode byCpu = Json.parse(CliRun.run("threads", pid, "--json", "--sort", "cpu").out()).path("threads");
        assertEquals("spinner", byCpu.get(0).path("name").asText());

        for (String[] command : new String[][] {{"threads", pid, "--name", "nomatch*"}, {"stacks", pid, "--thread", "nomatch*"},
                {"threads", pid, "--name", "nomatch*", "--top", "1", "--interval", "100ms"}}) {
            Result none = CliRun.run(command);
            assertEquals(1, none.exit(), "one rule for a name nobody has: " + none);
            assertEquals("", none.out(), "not even a header: " + none);
            assertEquals("jvmti-cli: no live thread matches 'nomatch*'\n", none.err());
        }
        Result noneInState = CliRun.run("threads", pid, "--name", "sleeper", "--state", "BLOCKED");
        assertEquals(0, noneInState.exit(), "a name that matches, in no thread of that state, is an empty table: " + noneInState);

        Result badState = CliRun.run("threads", pid, "--state", "SNOOZING");
        assertEquals(2, badState.exit(), badState.toString());
        assertTrue(badState.err().contains("unknown state 'SNOOZING'"), badState.err());
    }

    @ParameterizedTest
    @MethodSource("jdks")
    void aSecondRunReusesTheResidentAgentAndDetachThenAttachWorks(Jdks.Jdk jdk) throws Exception {
        TargetJvm target = targets.get(jdk);
        threadsJson(target);
        threadsJson(target);
        assertEquals(1, agentThreads(target), "one agent thread after two runs");
        if (jdk.feature() >= 21) {
            long warnings = target.stderr().stream().filter(l -> l.contains("agent has been loaded dynamically")).count();
            assertEquals(1, warnings, "one JEP 451 warning at most: " + target.stderr());
        }
        Path socket = Path.of("/tmp/.jvmti-cli-" + Files.getAttribute(Path.of("/proc/self"), "unix:uid") + "/" + target.pid() + ".sock");
        assertTrue(Files.exists(socket));

        Result detach = CliRun.run("detach", Long.toString(target.pid()));
        assertEquals(0, detach.exit(), detach.toString());
        assertEquals("detached from " + target.pid() + "\n", detach.out());
        awaitAgentThreads(target, 0);
        assertFalse(Files.exists(socket), "socket removed on detach");

        JsonNode again = threadsJson(target);
        assertTrue(Json.find(again, "name", "jvmti-cli agent").path("agent").asBoolean());
        assertEquals(1, agentThreads(target));
    }

    private static long agentThreads(TargetJvm target) throws Exception {
        try (Stream<Path> tasks = Files.list(Path.of("/proc", Long.toString(target.pid()), "task"))) {
            return tasks.filter(task -> {
                try {
                    return Files.readString(task.resolve("comm")).strip().equals("jvmti-cli agent");
                } catch (java.io.IOException e) {
                    return false;
                }
            }).count();
        }
    }

    private static void awaitAgentThreads(TargetJvm target, long expected) throws Exception {
        long deadline = System.nanoTime() + 20_000_000_000L; // a hang's bound: a thread's end can wait for the CPU on a loaded machine
        while (agentThreads(target) != expected && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertEquals(expected, agentThreads(target));
    }
}
