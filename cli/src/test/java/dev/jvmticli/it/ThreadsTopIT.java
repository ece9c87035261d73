package dev.jvmticli.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.jvmticli.targets.TopTarget;
import dev.jvmticli.testing.CliRun;
import dev.jvmticli.testing.CliRun.Result;
import dev.jvmticli.testing.Jdks;
import dev.jvmticli.testing.Json;
import dev.jvmticli.testing.Proc;
import dev.jvmticli.testing.TargetJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * `threads --top`'s user and system CPU against the kernel's record of each thread read around the
 * run, its allocation rate against the target's own stamps of each array, and its pause footer
 * against the target's -Xlog:safepoint and -Xlog:gc (stamped with CLOCK_MONOTONIC, the clock of the
 * agent's reads).
 */
class ThreadsTopIT {
    private static final long TICK_NANOS = 10_000_000L; // USER_HZ 100, as the agent's task_stat.h
    /** [NNNns] Safepoint "Op", ..., Reaching safepoint: N ns, ..., At safepoint: N ns, ..., Total: N ns */
    private static final Pattern SAFEPOINT = Pattern.compile(
            "^\\[(\\d+)ns\\] Safepoint \"([^\"]+)\".*Reaching safepoint: (\\d+) ns.*At safepoint: (\\d+) ns.*Total: (\\d+) ns");
    /** JDK 11's form, logged as the safepoint ends: [NNNns] Total time for which application threads were stopped: S seconds, Stopping threads took: S seconds */
    private static final Pattern SAFEPOINT_JDK11 = Pattern.compile(
            "^\\[(\\d+)ns\\] Total time for which application threads were stopped: ([0-9.]+) seconds, Stopping threads took: ([0-9.]+) seconds");
    /** [NNNns] GC(n) Pause Young (...) ... 1.234ms */
    private static final Pattern GC_PAUSE = Pattern.compile("^\\[(\\d+)ns\\] GC\\(\\d+\\) Pause (Young|Full|Remark|Cleanup)\\b.* ([0-9.]+)ms$");

    /**
     * G1 on every JDK; Parallel on the oldest and ZGC on the newest (generational from 23), which
     * name their collectors otherwise: the footer's collectors against each one's own log.
     */
    static Stream<Arguments> collectors() {
        List<Jdks.Jdk> all = Jdks.all();
        Jdks.Jdk oldest = all.stream().min(Comparator.comparingInt(Jdks.Jdk::feature)).orElseThrow();
        Jdks.Jdk newest = all.stream().max(Comparator.comparingInt(Jdks.Jdk::feature)).orElseThrow();
        return Stream.concat(all.stream().map(jdk -> Arguments.of(jdk, "-XX:+UseG1GC")),
                Stream.of(Arguments.of(oldest, "-XX:+UseParallelGC"), Arguments.of(newest, "-XX:+UseZGC")));
    }

    /** A pause as logged: when it began and ended (CLOCK_MONOTONIC nanos). */
    private record Logged(long start, long end) {
        boolean inside(long from, long to) {
            return start >= from && end <= to;
        }

        boolean touches(long from, long to) {
            return end >= from && start <= to;
        }
    }

    @ParameterizedTest
    @MethodSource("collectors")
    void userSystemAllocationAndPausesAgreeWithTheKernelTheTargetAndItsLog(Jdks.Jdk jdk, String collector) throws Exception {
        Path log = Files.createTempFile("top-pauses", ".log");
        try (TargetJvm target = TargetJvm.start(jdk, TopTarget.class, List.of(collector, "-Xmx128m", ownLog(log)))) {
            checkAgainstTheKernelTheTargetAndItsLog(target, log, collector);
        } finally {
            Files.deleteIfExists(log);
        }
    }

    /** The target's -Xlog:safepoint and -Xlog:gc into the file log, stamped with CLOCK_MONOTONIC (the clock of the agent's reads). */
    static String ownLog(Path log) {
        return "-Xlog:safepoint,gc:file=" + log + ":timenanos";
    }

    /** `threads --top` on a {@link TopTarget} started with {@link #ownLog} and collector, whose log this test reads at log. */
    static void checkAgainstTheKernelTheTargetAndItsLog(TargetJvm target, Path log, String collector) throws Exception {
        String pid = Long.toString(target.pid());
        Map<String, Long> nids = new HashMap<>();
        for (JsonNode t : Json.parse(CliRun.run("threads", pid, "--json").out()).path("threads")) {
            nids.put(t.path("name").asText(), t.path("nid").asLong());
        }
        Map<String, long[]> ticksBefore = new HashMap<>();
        for (String name : List.of("user-burner", "system-burner")) {
            ticksBefore.put(name, Proc.userSystemTicks(target.pid(), nids.get(name)));
        }
        Result result = CliRun.run("threads", pid, "--top", "40", "--kind", "java", "--interval", "2s", "--json");
        assertEquals(0, result.exit(), result.toString());
        JsonNode top = Json.parse(result.out());
        Map<String, JsonNode> rows = new HashMap<>();
        top.path("threads").forEach(row -> rows.put(row.path("thread").path("name").asText(), row));
        assertTrue(top.path("threads").findValues("agent").stream().noneMatch(JsonNode::asBoolean), "the agent's own thread is never a row: " + top);

        for (String name : List.of("user-burner", "system-burner")) {
            long[] before = ticksBefore.get(name);
            long[] after = Proc.userSystemTicks(target.pid(), nids.get(name));
            long procUser = (after[0] - before[0]) * TICK_NANOS;
            long procSystem = (after[1] - before[1]) * TICK_NANOS;
            JsonNode row = rows.get(name);
            assertNotNull(row, name + " in " + top);
            long user = row.path("userNanosInInterval").asLong(-1);
            long system = row.path("systemNanosInInterval").asLong(-1);
            String said = name + ": --top user " + user + " system " + system + " cpu " + row.path("cpuNanosInInterval")
                    + ", /proc around the run user " + procUser + " system " + procSystem;
            assertTrue(user >= 0 && system >= 0 && user <= procUser && system <= procSystem, "within the kernel's counts around the run: " + said);
            long cpu = row.path("cpuNanosInInterval").asLong();
            assertTrue(Math.abs(user + system - cpu) <= 2 * TICK_NANOS + cpu / 10, "user + system is the thread's CPU: " + said);
            double share = (double) system / (user + system);
            double procShare = (double) procSystem / (procUser + procSystem);
            assertTrue(Math.abs(share - procShare) <= 0.1, "the system share as the kernel's around the run: " + said);
            assertTrue(name.equals("user-burner") ? procShare < 0.1 : procShare > 0.5, "the target burns as it says: " + said);
        }

        JsonNode reads = top.path("cpuReads");
        long firstStart = reads.get(0).path("startNanos").asLong();
        long firstEnd = reads.get(0).path("endNanos").asLong();
        long secondStart = reads.get(1).path("startNanos").asLong();
        long secondEnd = reads.get(1).path("endNanos").asLong();
        String[] counts = target.ask("allocations " + firstEnd + " " + secondStart).split(" ");
        long certain = Long.parseLong(counts[0]);
        long possible = Long.parseLong(target.ask("allocations " + firstStart + " " + secondEnd).split(" ")[1]);
        long allocated = rows.get("allocator").path("allocatedBytesInInterval").asLong(-1);
        // an array is its bytes and a header of at most 24 (16 with compressed class pointers)
        assertTrue(certain > 0 && allocated >= certain * TopTarget.ARRAY_BYTES && allocated <= possible * (TopTarget.ARRAY_BYTES + 24),
                "allocator: --top " + allocated + " bytes, the target's own stamps " + certain + " to " + possible + " arrays of "
                        + TopTarget.ARRAY_BYTES);

        JsonNode pauses = top.path("pauses");
        long from = pauses.path("fromNanos").asLong();
        long to = pauses.path("toNanos").asLong();
        assertTrue(from >= firstEnd && to >= from && to <= secondStart,
                "the pauses' interval lies within the CPU reads: " + top);
        checkSafepoints(pauses.path("safepoints"), Files.readAllLines(log), from, to);
        if (collector.equals("-XX:+UseZGC")) {
            checkZgcPauses(pauses.path("collectors"), Files.readAllLines(log), from, to);
        } else {
            checkCollectors(pauses.path("collectors"), Files.readAllLines(log), from, to,
                    collector.equals("-XX:+UseG1GC") ? G1_BEANS : PARALLEL_BEANS);
        }
    }

    /**
     * Every safepoint logged inside the interval counted, none but those logged touching it; the time
     * likewise (whole ms, each total cut), at least their reaching and at-safepoint times and at most
     * their whole (which adds JDK 17's cleanup and JDK 25's leaving the safepoint).
     */
    static void checkSafepoints(JsonNode safepoints, List<String> log, long from, long to) {
        long inside = 0;
        long touching = 0;
        long insideNanos = 0;
        long touchingNanos = 0;
        for (String line : log) {
            Matcher m = SAFEPOINT.matcher(line);
            Matcher jdk11 = SAFEPOINT_JDK11.matcher(line);
            boolean found = m.find();
            if (found || jdk11.find()) {
                long end = Long.parseLong(found ? m.group(1) : jdk11.group(1));
                // JDK 11's total runs from the safepoint's begin: reaching it and at it
                long total = found ? Long.parseLong(m.group(5)) : Math.round(Double.parseDouble(jdk11.group(2)) * 1e9);
                long reachingAndAt = found ? Long.parseLong(m.group(3)) + Long.parseLong(m.group(4)) : total;
                Logged safepoint = new Logged(end - total, end);
                if (safepoint.inside(from, to)) {
                    inside++;
                    insideNanos += reachingAndAt;
                }
                if (safepoint.touches(from, to)) {
                    touching++;
                    touchingNanos += total;
                }
            }
        }
        long count = safepoints.path("count").asLong(-1);
        long millis = safepoints.path("atSafepointMillis").asLong() + safepoints.path("reachingMillis").asLong();
        String said = "--top " + safepoints + "; -Xlog:safepoint " + inside + " inside (" + insideNanos + " ns), " + touching
                + " touching (" + touchingNanos + " ns)";
        assertTrue(inside > 0, "the collector thread's GCs are safepoints in the interval: " + said);
        assertTrue(count >= inside && count <= touching, said);
        assertTrue(millis >= insideNanos / 1_000_000 - 2 && millis <= touchingNanos / 1_000_000 + 2, said);
    }

    /** G1's collectors (GarbageCollectorMXBean names) by the pause -Xlog:gc names. */
    private static final Map<String, String> G1_BEANS = Map.of("Young", "G1 Young Generation", "Full", "G1 Old Generation",
            "Remark", "G1 Concurrent GC", "Cleanup", "G1 Concurrent GC");
    /** Parallel's. */
    private static final Map<String, String> PARALLEL_BEANS = Map.of("Young", "PS Scavenge", "Full", "PS MarkSweep");

    /** Each collector's count and time against the pauses -Xlog:gc logged in the interval. */
    private static void checkCollectors(JsonNode collectors, List<String> log, long from, long to, Map<String, String> beanOfPause) {
        Map<String, long[]> logged = new HashMap<>(); // bean: inside, touching, inside nanos, touching nanos
        for (String line : log) {
            Matcher m = GC_PAUSE.matcher(line);
            if (m.find()) {
                long end = Long.parseLong(m.group(1));
                long nanos = Math.round(Double.parseDouble(m.group(3)) * 1e6);
                Logged pause = new Logged(end - nanos, end);
                long[] totals = logged.computeIfAbsent(beanOfPause.get(m.group(2)), k -> new long[4]);
                if (pause.inside(from, to)) {
                    totals[0]++;
                    totals[2] += nanos;
                }
                if (pause.touches(from, to)) {
                    totals[1]++;
                    totals[3] += nanos;
                }
            }
        }
        String full = beanOfPause.get("Full");
        assertTrue(logged.containsKey(full) && logged.get(full)[0] > 0, "the collector thread's full GCs are in the interval: " + collectors);
        for (JsonNode collector : collectors) {
            long[] totals = logged.getOrDefault(collector.path("name").asText(), new long[4]);
            long count = collector.path("count").asLong();
            long millis = collector.path("millis").asLong();
            String said = "--top " + collector + "; -Xlog:gc " + totals[0] + " inside (" + totals[2] + " ns), " + totals[1] + " touching ("
                    + totals[3] + " ns)";
            assertTrue(count >= totals[0] && count <= totals[1], said);
            assertTrue(millis >= totals[2] / 1_000_000 - 1 - count && millis <= totals[3] / 1_000_000 + 1 + count + totals[3] / 20_000_000, said);
        }
    }

    /**
     * ZGC's pauses are its Z* safepoints (ZMarkStart..., ZMarkEnd..., ZRelocateStart...): the footer's
     * "Pauses" collectors (ZGC Pauses; generational, ZGC Minor Pauses and ZGC Major Pauses) count
     * those logged inside the interval at least and those touching it at most. Its "Cycles" collectors
     * are concurrent collections, whose start -Xlog:gc at info does not log: counted, not checked here.
     */
    private static void checkZgcPauses(JsonNode collectors, List<String> log, long from, long to) {
        long inside = 0;
        long touching = 0;
        long touchingNanos = 0;
        for (String line : log) {
            Matcher m = SAFEPOINT.matcher(line);
            if (m.find() && m.group(2).startsWith("Z")) {
                long end = Long.parseLong(m.group(1));
                long total = Long.parseLong(m.group(5));
                Logged pause = new Logged(end - total, end);
                inside += pause.inside(from, to) ? 1 : 0;
                if (pause.touches(from, to)) {
                    touching++;
                    touchingNanos += total;
                }
            }
        }
        long count = 0;
        long millis = 0;
        for (JsonNode collector : collectors) {
            if (collector.path("name").asText().endsWith("Pauses")) {
                count += collector.path("count").asLong();
                millis += collector.path("millis").asLong();
            }
        }
        String said = "--top " + collectors + "; -Xlog:safepoint Z* " + inside + " inside, " + touching + " touching (" + touchingNanos + " ns)";
        assertTrue(inside > 0, "the collector thread's GCs pause in the interval: " + said);
        assertTrue(count >= inside && count <= touching, said);
        assertTrue(millis <= touchingNanos / 1_000_000 + 1 + count, said);
    }
}
