package dev.jvmticli.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.jvmticli.targets.GcBurnTarget;
import dev.jvmticli.testing.CliRun;
import dev.jvmticli.testing.CliRun.Result;
import dev.jvmticli.testing.Jdks;
import dev.jvmticli.testing.Json;
import dev.jvmticli.testing.Proc;
import dev.jvmticli.testing.TargetJvm;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The JVM's own threads on a target that collects garbage all the time (GcBurnTarget on a 64 MB
 * heap, G1, two C1 and two C2 compiler threads, whose kernel names are cut to the same 15 bytes):
 * the GC workers top {@code threads --top}, each JVM thread's CPU time is what the kernel counts
 * for its nid, every JVM thread has jstack's full name, nid and tid, and {@code stacks} names
 * every thread jstack names.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class VmThreadsIT {
    private static final List<String> OPTIONS = List.of("-Xmx64m", "-XX:+UseG1GC", "-XX:TieredStopAtLevel=4", "-XX:CICompilerCount=4",
            "-XX:-UseDynamicNumberOfCompilerThreads");
    private static final Pattern GC_WORKER = Pattern.compile("GC Thread#\\d+");
    /** A jstack header, Java thread or not: name, then tid and nid (hex before JDK 19). */
    private static final Pattern JSTACK_HEADER = Pattern.compile(
            "(?m)^\"([^\"\n]*)\" (?:#\\d+ |os_prio=|cpu=).*? tid=(0x[0-9a-f]+) nid=(?:0x([0-9a-f]+)|(\\d+)) ");
    /** The kernel's clock tick (USER_HZ) in ms, and how far apart its count and HotSpot's may be. */
    static final long TICK_MS = 10;
    static final long SLACK_MS = 2 * TICK_MS;

    private final Map<Jdks.Jdk, TargetJvm> targets = new TreeMap<>((a, b) -> a.home().compareTo(b.home()));

    Stream<Jdks.Jdk> jdks() {
        return Jdks.stream();
    }

    @BeforeAll
    void start() {
        Jdks.all().forEach(jdk -> targets.put(jdk, TargetJvm.start(jdk, GcBurnTarget.class, OPTIONS)));
    }

    @AfterAll
    void stop() {
        targets.values().forEach(TargetJvm::close);
    }

    private record JstackThread(String tid, long nid) {
    }

    private static String jstack(Jdks.Jdk jdk, TargetJvm target) throws Exception {
        Process jstack = new ProcessBuilder(jdk.home().resolve("bin/jstack").toString(), Long.toString(target.pid()))
                .redirectErrorStream(true).start();
        String dump = new String(jstack.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, jstack.waitFor(), dump);
        return dump;
    }

    private static Map<String, JstackThread> jstackThreads(String dump) {
        Map<String, JstackThread> threads = new HashMap<>();
        Matcher header = JSTACK_HEADER.matcher(dump);
        while (header.find()) {
            long nid = header.group(3) != null ? Long.parseLong(header.group(3), 16) : Long.parseLong(header.group(4));
            threads.put(header.group(1), new JstackThread(header.group(2), nid));
        }
        return threads;
    }

    private static JsonNode cli(String... args) {
        Result result = CliRun.run(args);
        assertEquals(0, result.exit(), result.toString());
        return Json.parse(result.out());
    }

    /**
     * GC workers in the top lines, and each JVM thread of the list with what the kernel counted for
     * its nid over a window holding the interval: no more than that, and, the collections going on
     * at a steady pace, not far below that rate.
     */
    @ParameterizedTest
    @MethodSource("jdks")
    void gcWorkersTopTheListWithTheCpuTheKernelCounts(Jdks.Jdk jdk) throws Exception {
        TargetJvm target = targets.get(jdk);
        Map<Long, Long> before = Proc.cpuTicksByTask(target.pid());
        long windowStart = System.nanoTime();
        JsonNode top = cli("threads", Long.toString(target.pid()), "--top", "5", "--interval", "3s", "--json");
        long windowMs = (System.nanoTime() - windowStart) / 1_000_000;
        Map<Long, Long> after = Proc.cpuTicksByTask(target.pid());
        long intervalMs = top.path("intervalMillis").asLong();
        List<String> names = new ArrayList<>();
        int vmRows = 0;
        for (JsonNode row : top.path("threads")) {
            JsonNode thread = row.path("thread");
            names.add(thread.path("kind").asText() + " " + thread.path("name").asText());
            long nid = thread.path("nid").asLong();
            if (!thread.path("kind").asText().equals("vm") || nid == 0 || !after.containsKey(nid)) {
                continue;
            }
            vmRows++;
            long kernelMs = (after.get(nid) - before.getOrDefault(nid, 0L)) * TICK_MS;
            long oursMs = row.path("cpuNanosInInterval").asLong() / 1_000_000;
            String facts = jdk + " " + thread.path("name").asText() + ": " + oursMs + " ms in " + intervalMs + " ms; the kernel counted "
                    + kernelMs + " ms in " + windowMs + " ms";
            assertTrue(oursMs <= kernelMs + SLACK_MS, facts);
            assertTrue(oursMs * 3 >= kernelMs * intervalMs / windowMs - SLACK_MS, facts);
        }
        assertTrue(names.stream().anyMatch(n -> n.startsWith("vm ") && GC_WORKER.matcher(n.substring(3)).matches()), jdk + ": " + names);
        assertTrue(vmRows >= 2, jdk + ": " + names);
    }

    /**
     * Every JVM thread's CPU time lies between what the kernel counted for its nid just before and
     * just after; and each has jstack's name, nid and tid, the compiler threads whose kernel names
     * are the same included.
     */
    @ParameterizedTest
    @MethodSource("jdks")
    void jvmThreadsHaveJstacksNamesNidsTidsAndTheKernelsCpu(Jdks.Jdk jdk) throws Exception {
        TargetJvm target = targets.get(jdk);
        Map<Long, Long> before = Proc.cpuTicksByTask(target.pid());
        JsonNode vmThreads = cli("threads", Long.toString(target.pid()), "--kind", "vm", "--json").path("vmThreads");
        Map<Long, Long> after = Proc.cpuTicksByTask(target.pid());
        Map<String, JstackThread> jstack = jstackThreads(jstack(jdk, target));
        Set<String> names = new TreeSet<>();
        for (JsonNode thread : vmThreads) {
            String name = thread.path("name").asText();
            long nid = thread.path("nid").asLong();
            names.add(name);
            assertEquals("vm", thread.path("kind").asText());
            assertTrue(nid > 0, jdk + " " + name + ": no nid in " + thread);
            assertEquals(jstack.get(name), new JstackThread(thread.path("tid").asText(), nid), jdk + " " + name);
            long oursMs = thread.path("cpuNanos").asLong() / 1_000_000;
            assertTrue(oursMs >= before.get(nid) * TICK_MS - SLACK_MS && oursMs <= after.get(nid) * TICK_MS + SLACK_MS,
                    jdk + " " + name + ": " + oursMs + " ms, the kernel counted " + before.get(nid) * TICK_MS + " then " + after.get(nid) * TICK_MS);
        }
        assertTrue(names.containsAll(List.of("VM Thread", "GC Thread#0", "C1 CompilerThread0", "C2 CompilerThread0",
                "C2 CompilerThread1", "Service Thread")), jdk + ": " + names);
    }

    /** The names stacks lists against those of a jstack run right after (taken again, three times at most, while threads come and go). */
    @ParameterizedTest
    @MethodSource("jdks")
    void stacksNamesEveryThreadJstackNames(Jdks.Jdk jdk) throws Exception {
        TargetJvm target = targets.get(jdk);
        Set<String> ours = Set.of();
        Set<String> theirs = Set.of();
        for (int attempt = 1; attempt <= 3 && (ours.isEmpty() || !ours.equals(theirs)); attempt++) {
            Result stacks = CliRun.run("stacks", Long.toString(target.pid()));
            assertEquals(0, stacks.exit(), stacks.toString());
            ours = new TreeSet<>(jstackThreads(stacks.out()).keySet());
            theirs = new TreeSet<>(jstackThreads(jstack(jdk, target)).keySet());
        }
        assertEquals(theirs, ours, jdk + ": the threads jstack names and those stacks names");
        assertTrue(ours.containsAll(List.of("VM Thread", "GC Thread#0", "C2 CompilerThread1", "Service Thread", "burner-0")), ours.toString());
    }

    /** dump's stacks.txt, as stacks: the JVM's own threads too, against a jstack run right after (three dumps at most). */
    @ParameterizedTest
    @MethodSource("jdks")
    void dumpsStacksNameEveryThreadJstackNames(Jdks.Jdk jdk, @TempDir Path work) throws Exception {
        TargetJvm target = targets.get(jdk);
        Set<String> ours = Set.of();
        Set<String> theirs = Set.of();
        for (int attempt = 1; attempt <= 3 && (ours.isEmpty() || !ours.equals(theirs)); attempt++) {
            Path out = work.resolve("dump-" + attempt);
            Result dump = CliRun.run("dump", Long.toString(target.pid()), "--out", out.toString());
            assertEquals(0, dump.exit(), dump.toString());
            String stacksTxt = Files.readString(out.resolve("round-001/stacks.txt"));
            ours = new TreeSet<>(jstackThreads(stacksTxt).keySet());
            // the dump's contention recording's helpers, the agent's own (so marked), gone when jstack runs after the dump
            for (String helper : List.of("jvmti-cli contention", "jvmti-cli park owners")) {
                assertTrue(stacksTxt.lines().anyMatch(l -> l.startsWith("\"" + helper + "\" #") && l.contains(" (jvmti-cli agent)")), stacksTxt);
                ours.remove(helper);
            }
            theirs = new TreeSet<>(jstackThreads(jstack(jdk, target)).keySet());
        }
        assertEquals(theirs, ours, jdk + ": the threads jstack names and those dump's stacks.txt names");
        assertTrue(ours.containsAll(List.of("VM Thread", "GC Thread#0", "C2 CompilerThread1", "burner-0")), ours.toString());
    }
}
