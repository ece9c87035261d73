package dev.jvmticli.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.jvmticli.targets.PausesTarget;
import dev.jvmticli.testing.CliRun;
import dev.jvmticli.testing.CliRun.Result;
import dev.jvmticli.testing.Jdks;
import dev.jvmticli.testing.Json;
import dev.jvmticli.testing.TargetJvm;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * `pauses` against the target's own -Xlog:safepoint and -Xlog:gc, written to a file of the test's
 * with the same decorations as the agent's output (the JVM decorates a line once for all its
 * outputs, so a pause is the same line in both): every safepoint the target logged inside the
 * window is reported once with its figures, nothing it did not log is, and each collector pause is
 * named in the safepoint it ran in; the log output the command added is gone after it. With
 * --late-threads, each safepoint slow to reach names the loop that held it up, and no other does.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PausesIT {
    private static final Pattern LINE = Pattern.compile("^\\[(\\d+)ms\\]\\[(\\d+)ns\\] (.*)$");
    private static final Pattern SAFEPOINT = Pattern.compile(
            "^Safepoint \"([^\"]+)\", .*Reaching safepoint: (\\d+) ns, .*At safepoint: (\\d+) ns, .*Total: (\\d+) ns");
    /** A collector's pause: G1's, Parallel's and Shenandoah's under gc, ZGC's under gc+phases (generational ZGC's after "Y: ", "y: " or "O: "). */
    private static final Pattern GC_PAUSE = Pattern.compile("^GC\\((\\d+)\\) ((?:[YyO]: )?Pause .*)$");
    /** JDK 11's safepoint: the line that begins it, with its operation, and the one that ends it, with its total and time to reach it. */
    static final Pattern JDK11_ENTERING = Pattern.compile("^Entering safepoint region: (.+)$");
    static final Pattern JDK11_STOPPED = Pattern.compile("^Total time for which application threads were stopped: ([\\d.]+) seconds, "
            + "Stopping threads took: ([\\d.]+) seconds$");
    private static final long SLOW_NANOS = 5_000_000;

    /** A safepoint line of the target's own log. */
    record Logged(long millis, long uptimeNanos, String operation, long reachingNanos, long atSafepointNanos, long totalNanos) {
        String key() {
            return uptimeNanos + " " + operation + " " + reachingNanos + " " + atSafepointNanos + " " + totalNanos;
        }
    }

    /** A collector's pause line of the target's own log. */
    record LoggedGc(long millis, long uptimeNanos, long id, String text) {
    }

    /** Every collector on every installed JDK: each exists in OpenJDK 17 and 25. */
    Stream<Arguments> collectors() {
        return Jdks.stream().flatMap(jdk -> Stream.of("-XX:+UseG1GC", "-XX:+UseParallelGC", "-XX:+UseZGC", "-XX:+UseShenandoahGC")
                .map(gc -> Arguments.of(jdk, gc)));
    }

    /**
     * One target per collector, with the loop holding its safepoints up: every safepoint it logged
     * in the window is reported once, with its figures and its collector's pause; each reported as
     * slow to reach is, and one the loop held up names the loop's thread in its method, with
     * async-profiler's window as long as the logged time to reach.
     */
    @ParameterizedTest
    @MethodSource("collectors")
    void everyPauseTheJvmLoggedIsReportedOnceAndTheLoopThatHeldOneUpIsNamed(Jdks.Jdk jdk, String collector) throws Exception {
        Path log = Files.createTempFile("pauses", ".log");
        // C2 (the targets run C1 only otherwise, which polls in every loop); async-profiler (--late-threads) chains the signal handlers and records JFR
        List<String> options = List.of(collector, "-Xmx64m", "-XX:TieredStopAtLevel=4", "-XX:-UseCountedLoopSafepoints", ownLog(log));
        try (TargetJvm target = TargetJvm.start(jdk, PausesTarget.class, options, "late").profiled()) {
            // 5 s: a loop period or more even where the collector's own threads take much of the CPU from the loop (ZGC on 17, on 64 MB)
            JsonNode doc = pauses(target, "5s", "--late-threads");
            List<Logged> inWindow = checkAgainstOwnLog(doc, log);
            assertTrue(inWindow.size() >= 3, "the allocator's collections and the loop's: " + inWindow);
            assertTrue(inWindow.stream().anyMatch(l -> l.reachingNanos() >= 100_000_000L), "the loop held up a safepoint in the window from "
                    + doc.path("startedMillis") + " to " + doc.path("stoppedMillis") + ": " + inWindow);
            checkCollectorPauses(doc, log);
            assertTrue(doc.path("pauses").findValues("gc").size() >= 1, "the collector's pauses named (ZGC's from gc+phases): " + doc);
            List<Long> reaching = new ArrayList<>();
            doc.path("pauses").forEach(p -> reaching.add(p.path("reachingNanos").asLong()));
            assertEquals(reaching.stream().filter(r -> r > SLOW_NANOS).count(), doc.path("slowToReach").asLong(), doc.toString());
            assertEquals(reaching.stream().mapToLong(Long::longValue).max().orElse(0), doc.path("longestReachingNanos").asLong());
            assertTrue(assertEachLatePauseNamesTheLoop(doc) >= 1, doc.toString());
            assertFalse(logOutputs(jdk, target.pid()).contains("/proc/self/fd/"), "the agent's log output is taken away");
        } finally {
            Files.deleteIfExists(log);
        }
    }

    /**
     * Something else stops async-profiler in the middle of the window: jcmd loads the same library
     * with "stop", as another user's asprof would (the JVM's dlopen finds it loaded and runs its
     * Agent_OnAttach). The report says that the command's run was over (async-profiler no longer had
     * its recording open), and by when (its recording's last write, between jcmd's start and end);
     * each slow pause that began after that says so, and one the loop held up before it still names
     * the loop.
     */
    @Test
    void aProfilerStoppedBySomethingElseInTheWindowIsSaid() throws Exception {
        Jdks.Jdk jdk = Jdks.current();
        List<String> options = List.of("-XX:+UseG1GC", "-Xmx64m", "-XX:TieredStopAtLevel=4", "-XX:-UseCountedLoopSafepoints");
        try (TargetJvm target = TargetJvm.start(jdk, PausesTarget.class, options, "late").profiled()) {
            String pid = Long.toString(target.pid());
            CompletableFuture<Result> run = CompletableFuture.supplyAsync(() -> CliRun.run("pauses", pid, "--duration", "6s", "--late-threads", "--json"));
            String library = profilerLibraryMapped(target.pid());
            Thread.sleep(2500); // a safepoint or two the loop held up, sampled
            target.anotherAgentLoaded();
            long before = System.currentTimeMillis();
            String said = agentLoad(jdk, pid, library, "stop,quiet,loglevel=none");
            assertTrue(said.contains("return code: 0"), said);
            long after = System.currentTimeMillis();
            Result result = run.get(120, TimeUnit.SECONDS);
            assertEquals(0, result.exit(), result.toString());
            JsonNode doc = Json.parse(result.out());
            JsonNode sampling = doc.path("lateThreads");
            // its run over, the command's stop is not tried: async-profiler no longer has its recording open
            assertTrue(sampling.path("runNotOurs").asBoolean() && sampling.path("stopError").isNull(), sampling.toString());
            assertTrue(sampling.path("error").isNull(), sampling.toString());
            long stopped = sampling.path("recordingWrittenMillis").asLong();
            // a file's time is the kernel's coarse clock: up to a tick (at most 10 ms) behind
            assertTrue(stopped >= before - 10 && stopped <= after, before + " <= " + stopped + " <= " + after);
            long namedBefore = 0;
            long saidAfter = 0;
            for (JsonNode p : doc.path("pauses")) {
                JsonNode late = p.path("lateThreads");
                if (late.isMissingNode() || late.path("beganBeforeSampling").asBoolean()) {
                    continue;
                }
                // the log's start is to the millisecond, and async-profiler's stop within the one of its last write
                if (p.path("startMillis").asLong() > stopped + 1) {
                    assertTrue(late.path("beganAfterSamplingStopped").asBoolean() && late.path("threads").isEmpty(), p.toString());
                    saidAfter++;
                } else if (p.path("endMillis").asLong() < stopped && p.path("reachingNanos").asLong() >= 100_000_000L) {
                    assertEquals("late-loop", late.path("threads").path(0).path("thread").asText(), p.toString());
                    namedBefore++;
                }
            }
            assertTrue(namedBefore >= 1 && saidAfter >= 1, doc.toString());
        }
    }

    /**
     * Something else stops async-profiler in the middle of the window and starts a run of its own
     * (jcmd, as in the test above): the command's stop at the window's end leaves that run alone
     * (its owner's stop afterwards succeeds, which it does not once the run has been stopped), and
     * the report says that async-profiler no longer wrote the command's recording, by when it had
     * been stopped, and that the run it then had was left running.
     */
    @Test
    void aProfilerRunStartedBySomethingElseInTheWindowIsLeftRunning() throws Exception {
        Jdks.Jdk jdk = Jdks.current();
        List<String> options = List.of("-XX:+UseG1GC", "-Xmx64m", "-XX:TieredStopAtLevel=4", "-XX:-UseCountedLoopSafepoints");
        Path theirs = Files.createTempFile("their-profile", ".collapsed");
        try (TargetJvm target = TargetJvm.start(jdk, PausesTarget.class, options, "late").profiled()) {
            String pid = Long.toString(target.pid());
            CompletableFuture<Result> run = CompletableFuture.supplyAsync(() -> CliRun.run("pauses", pid, "--duration", "5s", "--late-threads", "--json"));
            String library = profilerLibraryMapped(target.pid());
            Thread.sleep(1500);
            target.anotherAgentLoaded();
            long before = System.currentTimeMillis();
            String stopped = agentLoad(jdk, pid, library, "stop,quiet,loglevel=none");
            long after = System.currentTimeMillis();
            String started = agentLoad(jdk, pid, library, "start,event=cpu,interval=10ms,quiet,loglevel=none");
            assertTrue(stopped.contains("return code: 0") && started.contains("return code: 0"), stopped + started);
            Result result = run.get(120, TimeUnit.SECONDS);
            assertEquals(0, result.exit(), result.toString());
            String stoppedByItsOwner = agentLoad(jdk, pid, library, "stop,collapsed,file=" + theirs + ",quiet,loglevel=none");
            assertTrue(stoppedByItsOwner.contains("return code: 0"), "the other run was still going after the window: " + stoppedByItsOwner);
            JsonNode sampling = Json.parse(result.out()).path("lateThreads");
            assertTrue(sampling.path("runNotOurs").asBoolean() && sampling.path("stopError").isNull(), sampling.toString());
            long written = sampling.path("recordingWrittenMillis").asLong();
            assertTrue(written >= before - 10 && written <= after, before + " <= " + written + " <= " + after);
            assertTrue(Files.size(theirs) > 0, "the other run's own profile");
        } finally {
            Files.deleteIfExists(theirs);
        }
    }

    /** jcmd's JVMTI.agent_load of library into pid with options: what jcmd printed (its "return code: N"). */
    private static String agentLoad(Jdks.Jdk jdk, String pid, String library, String options) throws Exception {
        Process jcmd = new ProcessBuilder(jdk.home().resolve("bin/jcmd").toString(), pid, "JVMTI.agent_load", library, "\"" + options + "\"")
                .redirectErrorStream(true).start();
        String said = new String(jcmd.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(jcmd.waitFor(60, TimeUnit.SECONDS), said);
        return said;
    }

    /** The async-profiler library jvmti-cli's agent loaded into pid, as the kernel maps it, once it has. */
    private static String profilerLibraryMapped(long pid) throws Exception {
        Path maps = Path.of("/proc", Long.toString(pid), "maps");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            java.util.Optional<String> library = Files.readAllLines(maps).stream().map(l -> l.substring(l.lastIndexOf(' ') + 1))
                    .filter(f -> f.contains("libasyncProfiler")).findFirst();
            if (library.isPresent()) {
                return library.get();
            }
            Thread.sleep(50);
        }
        throw new AssertionError("async-profiler's library never mapped in " + pid);
    }

    /**
     * JDK 11 logs a safepoint in three lines (its operation, then the total and the time to reach it
     * in seconds, to the tenth of a microsecond) and no time at the safepoint: every safepoint a JDK 11
     * target logged in the window is reported once with those figures and no time at the safepoint (not
     * logged, never made up), nothing it did not log is; returns those
     * (DebianRootsLatencyAndMemoryIT, DumpWaitsIT and PausesInRootsIT run it in the bullseye root).
     */
    static List<Logged> checkAgainstJdk11Log(JsonNode doc, Path log) throws Exception {
        Map<String, Logged> logged = new HashMap<>();
        List<Logged> all = jdk11Safepoints(log);
        all.forEach(l -> logged.put(l.key(), l));
        Map<String, Integer> reported = new HashMap<>();
        long total = 0;
        for (JsonNode p : doc.path("pauses")) {
            String key = p.path("endUptimeNanos").asLong() + " " + p.path("operation").asText() + " " + p.path("reachingNanos").asLong()
                    + " -1 " + p.path("totalNanos").asLong();
            assertTrue(logged.containsKey(key), "reported but not logged by the target: " + p + "\n" + all);
            assertEquals(logged.get(key).millis(), p.path("endMillis").asLong(), key);
            assertEquals(null, reported.put(key, 1), "reported twice: " + p);
            assertTrue(p.path("atSafepointNanos").isNull(), "JDK 11 logs no time at the safepoint: " + p);
            total += p.path("totalNanos").asLong();
        }
        long started = doc.path("startedMillis").asLong();
        long stopped = doc.path("stoppedMillis").asLong();
        List<Logged> inWindow = all.stream().filter(l -> l.millis() > started && l.millis() < stopped).toList();
        inWindow.forEach(l -> assertTrue(reported.containsKey(l.key()), "logged by the target in the window but not reported: " + l));
        // at most the end of a safepoint that began before the output was added, whose operation it did not get
        assertTrue(doc.path("unreadLines").asLong() <= 1, doc.toString());
        assertEquals(doc.path("pauses").size(), doc.path("count").asInt());
        assertEquals(total, doc.path("totalNanos").asLong());
        return inWindow;
    }

    /**
     * JDK 11's safepoints: "Entering safepoint region: OP", then "Total time for which application
     * threads were stopped: T seconds, Stopping threads took: S seconds" (the line that ends it, whose
     * decorations are its end); no time at the safepoint (-1 in the key).
     */
    private static List<Logged> jdk11Safepoints(Path log) throws Exception {
        List<Logged> all = new ArrayList<>();
        String operation = null;
        for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
            Matcher m = LINE.matcher(line);
            if (!m.matches()) {
                continue;
            }
            Matcher e = JDK11_ENTERING.matcher(m.group(3));
            Matcher s = JDK11_STOPPED.matcher(m.group(3));
            if (e.matches()) {
                operation = e.group(1);
            } else if (s.matches() && operation != null) {
                all.add(new Logged(Long.parseLong(m.group(1)), Long.parseLong(m.group(2)), operation, nanos(s.group(2)), -1, nanos(s.group(1))));
                operation = null;
            }
        }
        return all;
    }

    /** JDK 11's seconds, to the tenth of a microsecond, in nanoseconds. */
    static long nanos(String seconds) {
        return new java.math.BigDecimal(seconds).movePointRight(9).longValueExact();
    }

    /**
     * Each pause slow to reach (its time to reach already checked against the target's own log) has
     * the threads it waited for, and no other pause has any: async-profiler's window of waiting
     * matched to it (unless it began before the sampling) lasted as long as the log says the reaching
     * did, and one the loop held up (over 100 ms: the loop runs half a second) names the loop's thread
     * first, running PausesTarget.spin; the command found its own run of async-profiler's going at
     * the end and stopped it. Returns how many the loop held up.
     */
    static long assertEachLatePauseNamesTheLoop(JsonNode doc) {
        return assertEachLatePauseNamesTheLoop(doc, false);
    }

    /**
     * As {@link #assertEachLatePauseNamesTheLoop(JsonNode)}; jdk11: JDK 11 starts its time to reach
     * only once the collector's concurrent threads have yielded and the Threads_lock is taken, after
     * SafepointSynchronize::begin where async-profiler's window starts, so the window is at least the
     * logged time to reach and ends where it does (the log's end of the pause less its time at the
     * safepoint, to the millisecond).
     */
    static long assertEachLatePauseNamesTheLoop(JsonNode doc, boolean jdk11) {
        assertEquals("4.5", doc.path("lateThreads").path("profiler").asText(), doc.path("lateThreads").toString());
        assertTrue(doc.path("lateThreads").path("error").isNull(), doc.path("lateThreads").toString());
        // its own run found (its recording still open in async-profiler) and stopped
        assertTrue(!doc.path("lateThreads").path("runNotOurs").asBoolean() && doc.path("lateThreads").path("stopError").isNull(),
                doc.path("lateThreads").toString());
        long heldByTheLoop = 0;
        for (JsonNode p : doc.path("pauses")) {
            long reaching = p.path("reachingNanos").asLong();
            JsonNode late = p.path("lateThreads");
            if (reaching <= SLOW_NANOS) {
                assertTrue(late.isMissingNode(), "a pause not slow to reach names no late thread: " + p);
                continue;
            }
            assertTrue(late.isObject(), "a pause slow to reach has its late threads: " + p);
            // one that began before the sampling did (the log output is added first) has no window of async-profiler's
            boolean beganBefore = p.path("startMillis").asLong() <= doc.path("startedMillis").asLong();
            assertTrue(beganBefore || !late.path("windowNanos").isNull(), "async-profiler's window of it: " + p + " in the window from "
                    + doc.path("startedMillis") + " to " + doc.path("stoppedMillis"));
            if (reaching < 100_000_000L || beganBefore) {
                continue;
            }
            heldByTheLoop++;
            // async-profiler's breakpoints around the VM thread's waiting, against HotSpot's own figure
            long window = late.path("windowNanos").asLong();
            if (jdk11) {
                long windowEnd = late.path("windowStartNanos").asLong() + window;
                long reachedAbout = p.path("endMillis").asLong() * 1_000_000L + 500_000L - (p.path("totalNanos").asLong() - reaching);
                assertTrue(window >= reaching - 2_000_000L && Math.abs(windowEnd - reachedAbout) <= 2_000_000L,
                        "the window ends where the reaching does: " + p);
            } else {
                assertTrue(Math.abs(window - reaching) <= 2_000_000L, "the window is the reaching: " + p);
            }
            JsonNode first = late.path("threads").path(0);
            assertEquals("late-loop", first.path("thread").asText(), "the loop's thread held it up: " + p);
            assertTrue(first.path("stacks").path(0).path("frames").toString().contains("dev.jvmticli.targets.PausesTarget.spin"),
                    "running the loop: " + p);
            assertTrue(first.path("samples").asLong() * 1_000_000L <= reaching + 2_000_000L, "a sample per ms of CPU at most: " + p);
        }
        return heldByTheLoop;
    }

    static String ownLog(Path log) {
        return "-Xlog:safepoint=info,gc=info,gc+phases=info:file=" + log + ":timemillis,uptimenanos";
    }

    static JsonNode pauses(TargetJvm target, String duration, String... options) {
        List<String> args = new ArrayList<>(List.of("pauses", Long.toString(target.pid()), "--duration", duration, "--json"));
        args.addAll(List.of(options));
        Result result = CliRun.run(args.toArray(String[]::new));
        assertEquals(0, result.exit(), result.toString());
        return Json.parse(result.out());
    }

    /**
     * The reported pauses are lines of the target's own log, each once, and every safepoint it
     * logged inside the window (a millisecond in from each end: the clocks are read at whole
     * milliseconds) is among them; the totals are theirs. Returns the logged ones in the window.
     */
    static List<Logged> checkAgainstOwnLog(JsonNode doc, Path log) throws Exception {
        Map<String, Logged> logged = new HashMap<>();
        for (Logged l : safepoints(log)) {
            logged.put(l.key(), l);
        }
        Map<String, Integer> reported = new HashMap<>();
        long total = 0;
        for (JsonNode p : doc.path("pauses")) {
            String key = p.path("endUptimeNanos").asLong() + " " + p.path("operation").asText() + " " + p.path("reachingNanos").asLong()
                    + " " + p.path("atSafepointNanos").asLong() + " " + p.path("totalNanos").asLong();
            assertTrue(logged.containsKey(key), "reported but not logged by the target: " + p);
            assertEquals(logged.get(key).millis(), p.path("endMillis").asLong(), key);
            assertEquals(null, reported.put(key, 1), "reported twice: " + p);
            total += p.path("totalNanos").asLong();
        }
        long started = doc.path("startedMillis").asLong();
        long stopped = doc.path("stoppedMillis").asLong();
        List<Logged> inWindow = new ArrayList<>();
        for (Logged l : safepoints(log)) {
            if (l.millis() > started && l.millis() < stopped) {
                assertTrue(reported.containsKey(l.key()), "logged by the target in the window but not reported: " + l);
                inWindow.add(l);
            }
        }
        assertEquals(doc.path("pauses").size(), doc.path("count").asInt());
        assertEquals(0, doc.path("unreadLines").asLong(), "every line of the log read: " + doc.path("unreadLines"));
        assertEquals(total, doc.path("totalNanos").asLong());
        return inWindow;
    }

    /**
     * Each collector pause the target logged in a reported safepoint is named there, with its GC id
     * (if logged after the window began: a safepoint that began before may have logged it before).
     */
    static void checkCollectorPauses(JsonNode doc, Path log) throws Exception {
        long started = doc.path("startedMillis").asLong();
        List<LoggedGc> gcs = new ArrayList<>();
        for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
            Matcher m = LINE.matcher(line);
            Matcher gc = m.matches() ? GC_PAUSE.matcher(m.group(3)) : null;
            if (gc != null && gc.matches()) {
                gcs.add(new LoggedGc(Long.parseLong(m.group(1)), Long.parseLong(m.group(2)), Long.parseLong(gc.group(1)), gc.group(2)));
            }
        }
        for (JsonNode p : doc.path("pauses")) {
            long end = p.path("endUptimeNanos").asLong();
            long start = end - p.path("totalNanos").asLong();
            List<LoggedGc> inside = gcs.stream().filter(g -> g.uptimeNanos() >= start && g.uptimeNanos() <= end).toList();
            if (!inside.isEmpty() && inside.get(inside.size() - 1).millis() <= started) {
                continue;
            }
            if (inside.isEmpty()) {
                assertTrue(p.path("gc").isNull() || p.path("gc").isMissingNode(), "no collector logged a pause in " + p);
            } else {
                LoggedGc last = inside.get(inside.size() - 1);
                assertEquals(last.id(), p.path("gcId").asLong(), p.toString());
                assertEquals(last.text(), p.path("gc").asText(), p.toString());
            }
        }
    }

    private static List<Logged> safepoints(Path log) throws Exception {
        List<Logged> all = new ArrayList<>();
        for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
            Matcher m = LINE.matcher(line);
            Matcher s = m.matches() ? SAFEPOINT.matcher(m.group(3)) : null;
            if (s != null && s.find()) {
                all.add(new Logged(Long.parseLong(m.group(1)), Long.parseLong(m.group(2)), s.group(1), Long.parseLong(s.group(2)),
                        Long.parseLong(s.group(3)), Long.parseLong(s.group(4))));
            }
        }
        return all;
    }

    private static String logOutputs(Jdks.Jdk jdk, long pid) throws Exception {
        Process jcmd = new ProcessBuilder(jdk.home().resolve("bin/jcmd").toString(), Long.toString(pid), "VM.log", "list")
                .redirectErrorStream(true).start();
        String out = new String(jcmd.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(jcmd.waitFor(60, TimeUnit.SECONDS), "jcmd VM.log list");
        assertTrue(out.contains("Log output configuration:"), out);
        return out;
    }
}
