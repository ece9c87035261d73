package dev.jvmticli.it;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.jvmticli.analysis.Latency;
import dev.jvmticli.targets.ParkTruthTarget;
import dev.jvmticli.testing.CliProcess;
import dev.jvmticli.testing.CliRun;
import dev.jvmticli.testing.CliRun.Result;
import dev.jvmticli.testing.DebianRoots;
import dev.jvmticli.testing.DebianRoots.RootJdk;
import dev.jvmticli.testing.Jdks;
import dev.jvmticli.testing.Json;
import dev.jvmticli.testing.TargetJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * `contention`'s parks held to the target's own record of the same waits ({@link ParkTruthTarget}: each
 * thread times its own lock(), borrow, acquire and pinned class initialization with System.nanoTime, the
 * clock of the agent's probes, so the record is cut to the report's window exactly): a ReentrantLock and
 * its known owner, 50 borrowers of a pool of 4 connections, a pool of 4 idle workers, a Semaphore, a latch
 * made by hand that parks without a blocker, and
 * (JDK 21+) virtual threads on another lock and a virtual thread pinned to its carrier. The classes come
 * back with the SHA-256 they had, after a normal end and after a killed CLI.
 *
 * <p>JDK 17 runs without the CDS archive: a class from it comes back from HotSpot's first retransform with
 * other bytes (same class, encoded otherwise; docs/trace.md), which a SHA-256 cannot tell from a change.
 */
class ParkContentionIT {
    private static final Pattern DYNAMIC_AGENT_WARNING = Pattern.compile(
            "^WARNING: (A JVM TI agent has been loaded dynamically|If a serviceability tool is in use|Dynamic loading of agents)");
    private static final long MS = 1_000_000;

    @TempDir
    Path dir;

    static Stream<Jdks.Jdk> jdks() {
        return Jdks.stream();
    }

    /** One wait the target recorded: what, thread, nanoTime before and after, the owner's name at the start (or -). */
    record Wait(String what, String thread, long before, long after, String owner) {
        static Wait parse(String line) {
            String[] f = line.split("\t", 5);
            return new Wait(f[0], f[1], Long.parseLong(f[2]), Long.parseLong(f[3]), f[4]);
        }

        long nanos() {
            return after - before;
        }
    }

    @ParameterizedTest
    @MethodSource("jdks")
    void waitsOwnersSitesAndPercentilesAsTheTargetRecordedThem(Jdks.Jdk jdk) throws Exception {
        try (TargetJvm target = TargetJvm.start(jdk, ParkTruthTarget.class, List.of(), jdk.feature() >= 21 ? "virtual" : "platform")) {
            Path waits = dir.resolve("waits");
            check(target, jdk.feature(), waits, waits, jdk.toString());
        }
    }

    /**
     * The agent initializes the probe class before the probes go in. Left to the first probes, the target's
     * threads that reached them together waited on the class's init lock, a monitor (an int[] to JVMTI) whose
     * contended enter `contention` reported as the target's, at `LockSupport.park` (seen once in
     * bench/park-overhead.sh). Seen from outside, with the JDK's own `jcmd VM.classes` (JDK 25 here), in a
     * window in which no thread of ThreadsTarget's parks: no probe ran, and the class is initialized all the
     * same (before, it stayed "loaded" until a thread parked).
     */
    @org.junit.jupiter.api.Test
    void theProbeClassIsInitializedBeforeAnyThreadReachesAProbe() throws Exception {
        Jdks.Jdk jdk = Jdks.stream().filter(j -> j.feature() >= 25).findFirst().orElseThrow();
        try (TargetJvm target = TargetJvm.start(jdk, dev.jvmticli.targets.ThreadsTarget.class, List.of())) {
            String pid = Long.toString(target.pid());
            assertEquals(0, CliRun.run("threads", pid).exit());
            Process contention = CliProcess.start(List.of(), Jdks.current(), CliProcess.jar(), "contention", pid, "--duration", "3s", "--json");
            String state = null;
            while (contention.isAlive() && !"fully_initialized".equals(state)) {
                state = probeClassState(jdk, pid);
                Thread.sleep(100);
            }
            String report = new String(contention.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            assertTrue(contention.waitFor(60, java.util.concurrent.TimeUnit.SECONDS));
            assertEquals(0, contention.exitValue(), report);
            assertEquals("fully_initialized", state, "the probe class in the window, as jcmd VM.classes saw it");
            assertEquals(0, Json.parse(report).path("parks").path("parks").asLong(), "no thread parked in the window: " + report);
        }
    }

    /** The state jcmd VM.classes gives the park probe class (loaded, linked, fully_initialized), or null before it is defined. */
    private static String probeClassState(Jdks.Jdk jdk, String pid) throws Exception {
        Process jcmd = new ProcessBuilder(jdk.home().resolve("bin/jcmd").toString(), pid, "VM.classes").redirectErrorStream(true).start();
        String out = new String(jcmd.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertTrue(jcmd.waitFor(60, java.util.concurrent.TimeUnit.SECONDS) && jcmd.exitValue() == 0, out);
        return out.lines().filter(l -> l.endsWith(" dev.jvmticli.probe.ParkProbe") || l.contains(" dev.jvmticli.probe.ParkProbe "))
                .map(l -> l.trim().split("\\s+")[2]).findFirst().orElse(null);
    }

    /**
     * `trace` and `contention` on one JVM at once, each a session that retransforms classes: the one that
     * ends first leaves the capability to the other, which still puts its classes back (before, the first
     * to end gave the capability back and the other's RetransformClasses failed).
     */
    @org.junit.jupiter.api.Test
    void traceAndParksTogetherBothPutTheirClassesBack() throws Exception {
        try (TargetJvm target = TargetJvm.start(Jdks.current(), ParkTruthTarget.class, List.of(), "platform")) {
            String pid = Long.toString(target.pid());
            assertEquals(0, CliRun.run("threads", pid).exit());
            Process trace = CliProcess.start(List.of(), Jdks.current(), CliProcess.jar(), "trace", pid,
                    "dev.jvmticli.targets.ParkTruthTarget.serveOne", "--duration", "12s");
            java.io.BufferedReader err = new java.io.BufferedReader(new java.io.InputStreamReader(trace.getErrorStream(),
                    java.nio.charset.StandardCharsets.UTF_8));
            String line = err.readLine();
            assertTrue(line != null && line.startsWith("tracing "), String.valueOf(line));
            Result contention = CliRun.run("contention", pid, "--duration", "1s");
            assertEquals(0, contention.exit(), contention.toString());
            assertTrue(contention.out().contains("Classes put back: 1 of 1 with the bytes they had"), contention.out());
            String traced = new String(trace.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            assertTrue(trace.waitFor(60, java.util.concurrent.TimeUnit.SECONDS));
            // put back, not refused ("Classes NOT put back: RetransformClasses" when the capability was gone); whether
            // the bytes read again are the first ones is trace's own check (on JDK 17 a JVM's first session can differ)
            assertTrue(traced.contains("Classes put back: ") && !traced.contains("NOT put back"), traced);
        }
    }

    /**
     * A session may not instrument a class another session holds: a read and a restore each hand back
     * the class as it was loaded, so the second would take the first's probes out unseen (before, a
     * contention during a trace of LockSupport recorded its parks and left the trace counting none).
     * With a trace of LockSupport running, contention records monitors and says why not parks, and the
     * trace puts its class back. (The other way round, a trace of LockSupport while contention's probes
     * are in, takes the same check and answers `busy`.)
     */
    @org.junit.jupiter.api.Test
    void aClassAnotherSessionInstrumentsIsRefusedWithItsHolder() throws Exception {
        try (TargetJvm target = TargetJvm.start(Jdks.current(), ParkTruthTarget.class, List.of(), "platform")) {
            String pid = Long.toString(target.pid());
            assertEquals(0, CliRun.run("threads", pid).exit());
            String lockSupport = "java.util.concurrent.locks.LockSupport";
            Process trace = CliProcess.start(List.of(), Jdks.current(), CliProcess.jar(), "trace", pid, lockSupport + ".parkNanos",
                    "--duration", "8s");
            java.io.BufferedReader err = new java.io.BufferedReader(new java.io.InputStreamReader(trace.getErrorStream(),
                    java.nio.charset.StandardCharsets.UTF_8));
            String line = err.readLine();
            assertTrue(line != null && line.startsWith("tracing "), String.valueOf(line));
            Result contention = CliRun.run("contention", pid, "--duration", "1s");
            assertEquals(0, contention.exit(), contention.toString());
            assertTrue(contention.out().contains("parks not recorded: " + lockSupport + " is instrumented by trace for another client until it ends"),
                    contention.out());
            String traced = new String(trace.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            assertTrue(trace.waitFor(60, java.util.concurrent.TimeUnit.SECONDS));
            assertTrue(traced.contains("Classes put back: 1 of 1 with the bytes they had"), traced);
        }
    }

    /**
     * --collapsed and --html draw the parks beside the monitors, weighted by nanoseconds parked: the latch's
     * one waiter at its own root, no longer than the target's own parks over a span holding the window and
     * nearly all of the window (it is parked all but a few microseconds every 20 ms); the lock's three waiters
     * at a root of their own, the blocker as the leaf; the pool's idle workers left out.
     */
    @org.junit.jupiter.api.Test
    void collapsedAndHtmlWeighTheParksByStack() throws Exception {
        try (TargetJvm target = TargetJvm.start(Jdks.current(), ParkTruthTarget.class, List.of(), "platform")) {
            String pid = Long.toString(target.pid());
            assertEquals(0, CliRun.run("threads", pid).exit());
            target.ask("write " + dir.resolve("before")); // empties the record: what follows it holds the window
            Path page = dir.resolve("contention.html");
            Result result = CliRun.run("contention", pid, "--duration", "2s", "--collapsed", "--html", page.toString());
            target.ask("write " + dir.resolve("after"));
            assertEquals(0, result.exit(), result.toString());
            long latchTruth = Files.readAllLines(dir.resolve("after")).stream().map(Wait::parse).filter(w -> w.what().equals("latch"))
                    .mapToLong(Wait::nanos).sum();
            long latch = 0;
            long lock = 0;
            for (String line : result.out().split("\n")) {
                long weight = Long.parseLong(line.substring(line.lastIndexOf(' ') + 1));
                if (line.startsWith("[latch-waiter];") && line.endsWith(
                        ";dev.jvmticli.targets.ParkTruthTarget$HandMadeLatch.await;java.util.concurrent.locks.LockSupport.park;no blocker " + weight)) {
                    latch += weight;
                }
                if (line.startsWith("[3 threads];") && line.contains(";dev.jvmticli.targets.ParkTruthTarget.waitFor;java.util.concurrent.locks.ReentrantLock.lock;")
                        && line.contains(";java.util.concurrent.locks.ReentrantLock$FairSync@")) {
                    lock += weight;
                }
                assertFalse(line.contains("ThreadPoolExecutor.getTask"), "an idle wait: " + line);
            }
            String what = result.out() + "\nthe target's own latch parks: " + latchTruth / 1e6 + " ms";
            assertTrue(latch <= latchTruth && latch >= ParkTruthTarget.LATCH_MILLIS * MS * 40, latch / 1e6 + " ms at the latch: " + what);
            assertTrue(lock > 100 * MS, lock / 1e6 + " ms at the lock: " + what);
            String html = Files.readString(page);
            assertTrue(html.contains("HandMadeLatch.await") && html.contains("no blocker") && html.contains("[latch-waiter]"), "the page");
        }
    }

    /**
     * Debian 11's OpenJDK 11 (its LockSupport and AbstractQueuedSynchronizer as JDK 11 has them; platform
     * threads only) and Debian 13's OpenJDK 21, whose virtual threads also pin their carrier in a synchronized block.
     */
    @ParameterizedTest
    @MethodSource("rootJdks")
    void onTheRootsJdks(RootJdk jdk) throws Exception {
        Path library = Path.of(CliRun.run("agent-path").out().strip());
        Path classes = DebianRoots.classes(jdk.root(), library, ParkTruthTarget.class);
        try (TargetJvm target = TargetJvm.startWrapped(DebianRoots.ownMountNamespace(jdk.root()), classes, jdk.inside(),
                ParkTruthTarget.class, List.of(), jdk.feature() >= 21 ? "virtual" : "platform")) {
            Path inside = classes.resolve("waits");
            check(target, jdk.feature(), inside, jdk.root().resolve(inside.toString().substring(1)), jdk.toString());
        }
    }

    static Stream<RootJdk> rootJdks() {
        return DebianRoots.jdks().filter(jdk -> jdk.feature() == 11 || jdk.feature() == 21);
    }

    /**
     * Runs contention for 4 s, reads the target's record of the same window, holds each figure to it, then kills a CLI mid-window.
     * With virtual threads, the target's own record of the 2 s before the tool came tells how often its virtual threads' lock
     * changed hands without the tool: reading v-owner's stack must not slow that down (the one run that read a virtual owner
     * from the parking thread stalled a JDK 21 target for seconds).
     */
    private static void check(TargetJvm target, int feature, Path waitsForTarget, Path waitsHere, String jdk) throws Exception {
        boolean virtual = feature >= 21;
        String pid = Long.toString(target.pid());
        long[] quiet = virtual ? quietSpan(target) : null;
        Result result = CliRun.run("contention", pid, "--duration", "4s", "--json");
        target.ask("write " + waitsForTarget);
        assertEquals(0, result.exit(), result.toString());
        JsonNode parks = Json.parse(result.out()).path("parks");
        long since = parks.path("sinceNanos").asLong();
        long until = parks.path("untilNanos").asLong();
        List<Wait> record = Files.readAllLines(waitsHere).stream().map(Wait::parse).filter(w -> w.before() >= since && w.after() <= until).toList();
        JsonNode sites = parks.path("sites");
        String what = jdk + ": " + result.out();

        assertAll(jdk,
                () -> checkOwnedLock(sites, parks.path("ownerStacks"), record, "lock", "lock-waiter-", "lock-owner", false, what),
                () -> checkBorrowers(sites, since, until, what),
                () -> checkIdleWorkers(sites, what),
                () -> checkSemaphore(sites, record, what),
                () -> checkNoBlocker(sites, record, what),
                () -> {
                    if (virtual) {
                        checkOwnedLock(sites, parks.path("ownerStacks"), record, "vlock", "v-waiter-", "v-owner", true, what);
                        checkPinned(parks.path("pinned"), record, what);
                        checkNoStall(Files.readAllLines(waitsHere).stream().map(Wait::parse).toList(), quiet[0], quiet[1], since, until,
                                parks.path("ownerReadsDropped").asLong(), jdk);
                    } else {
                        assertFalse(parks.path("pinned").path("watched").asBoolean(), what);
                    }
                },
                () -> {
                    for (JsonNode c : parks.path("classes")) {
                        assertEquals(c.path("sha256").asText(), c.path("restoredSha256").asText(), "put back: " + c);
                    }
                    assertEquals(virtual ? 2 : 1, parks.path("classes").size(), what);
                });

        // a killed CLI: the agent puts the classes back when its connection closes
        String original = parks.path("classes").get(0).path("sha256").asText();
        Process killed = CliProcess.start(List.of(), Jdks.current(), CliProcess.jar(), "contention", pid, "--duration", "120s");
        // it prints nothing until the end: a second CLI is told busy once its session runs (asked only after a
        // while, so that it does not take the session first)
        Thread.sleep(3000);
        Result busy = CliRun.run("contention", pid, "--duration", "1s", "--no-parks");
        for (long deadline = System.nanoTime() + 30_000_000_000L; !busy.err().contains("(busy)") && killed.isAlive() && System.nanoTime() < deadline; ) {
            busy = CliRun.run("contention", pid, "--duration", "1s", "--no-parks");
        }
        assertTrue(busy.err().contains("(busy)"), "the killed CLI's session never started: " + busy
                + (killed.isAlive() ? "" : new String(killed.getErrorStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8)));
        Thread.sleep(1000); // its probes go in right after its monitors' session starts
        killed.destroyForcibly();
        Result again = CliRun.run("contention", pid, "--duration", "1s", "--json");
        for (long deadline = System.nanoTime() + 30_000_000_000L; again.exit() != 0 && System.nanoTime() < deadline; ) {
            again = CliRun.run("contention", pid, "--duration", "1s", "--json"); // busy until the agent has seen the connection close
        }
        assertEquals(0, again.exit(), again.toString());
        JsonNode lockSupport = Json.parse(again.out()).path("parks").path("classes").get(0);
        assertEquals(original, lockSupport.path("sha256").asText(), "read at the start of the session after the killed CLI's");
        assertEquals(original, lockSupport.path("restoredSha256").asText());

        // JDK 21+ warns once of the dynamically loaded agent (JEP 451): that is the attach; nothing else (no VerifyError)
        List<String> stderr = target.stderr().stream().filter(l -> !l.isBlank() && !DYNAMIC_AGENT_WARNING.matcher(l).find()).toList();
        assertEquals(List.of(), stderr, "the target's stderr");
    }

    /**
     * The virtual threads' lock changes hands as often with the tool reading v-owner's stack as in the span before the
     * tool came, by the target's own record (a stall of a second would take a quarter of the window's hand-offs).
     */
    private static void checkNoStall(List<Wait> all, long quietFrom, long quietUntil, long since, long until, long dropped, String jdk) {
        double without = handOffsPerSecond(all, quietFrom, quietUntil);
        double with = handOffsPerSecond(all, since, until);
        System.out.printf("vlock %s: %.1f hand-offs/s without the tool, %.1f/s with it reading v-owner's stack (%d reads dropped)%n",
                jdk, without, with, dropped);
        assertTrue(with >= 0.8 * without, String.format("%.1f hand-offs/s with the tool, %.1f/s without", with, without));
    }

    /** The target's nanoTime at the start and at the end of 2 s without the tool. */
    private static long[] quietSpan(TargetJvm target) throws InterruptedException {
        long from = Long.parseLong(target.ask("now"));
        Thread.sleep(2000);
        return new long[] {from, Long.parseLong(target.ask("now"))};
    }

    private static double handOffsPerSecond(List<Wait> all, long from, long until) {
        return all.stream().filter(w -> w.what().equals("vlock") && w.after() >= from && w.after() <= until).count() * 1e9 / (until - from);
    }

    /** The report's rows whose waiting threads are all named with prefix (at least one). */
    private static List<JsonNode> rowsOf(JsonNode sites, String prefix) {
        List<JsonNode> rows = new ArrayList<>();
        for (JsonNode row : sites) {
            boolean all = row.path("waiters").size() > 0;
            for (JsonNode w : row.path("waiters")) {
                all &= w.path("thread").asText().startsWith(prefix);
            }
            if (all) {
                rows.add(row);
            }
        }
        return rows;
    }

    private static long owned(JsonNode row, String owner) {
        long n = 0;
        for (JsonNode o : row.path("owners")) {
            n += o.path("thread").asText().equals(owner) ? o.path("count").asLong() : 0;
        }
        return n;
    }

    private static long percentile(List<Wait> waits, double p) {
        long[] sorted = waits.stream().mapToLong(Wait::nanos).sorted().toArray();
        return sorted[(int) Math.max(0, Math.ceil(p * sorted.length) - 1)];
    }

    /** Within the histogram's error plus what the target's own timing adds around the park (the lock's fast path, its record). */
    private static void assertNear(long tool, long truth, double share, long slack, String what) {
        assertTrue(Math.abs(tool - truth) <= share * truth + Latency.RELATIVE_ERROR * truth + slack,
                what + ": contention " + tool / 1e6 + " ms, the target's own " + truth / 1e6 + " ms");
    }

    /** The parks of a row that lasted at least 1 ms: count and p-th quantile, from its histogram's buckets. */
    private static long[][] longParks(JsonNode row) {
        List<long[]> buckets = new ArrayList<>();
        for (JsonNode b : row.path("buckets")) {
            if (b.get(0).asLong() >= MS) {
                buckets.add(new long[] {b.get(0).asLong(), b.get(1).asLong(), b.get(2).asLong()});
            }
        }
        return buckets.toArray(new long[0][]);
    }

    private static long count(long[][] buckets) {
        long n = 0;
        for (long[] b : buckets) {
            n += b[2];
        }
        return n;
    }

    /**
     * A lock held HOLD_MILLIS at a time by owner: one row at waitFor's lock(), acquire, not idle, the waiters
     * named (virtual with their ids when virtual), the owner named at the start of nearly every park. A lock()
     * may park more than once (a virtual thread's park returns at once when a permit was left, as its sleep
     * leaves one), so the parks of 1 ms or more are held to the target's waits of 1 ms or more: as many, and
     * their p50, p99 and max.
     */
    private static void checkOwnedLock(JsonNode sites, JsonNode ownerStacks, List<Wait> record, String kind, String waiterPrefix, String owner,
                                       boolean virtual, String what) {
        // JDK 21's virtual threads also park on the scheduler's own locks when they sleep: not this lock's site
        List<JsonNode> rows = rowsOf(sites, waiterPrefix).stream().filter(r -> r.path("site").asText().contains("ParkTruthTarget.waitFor")).toList();
        assertEquals(1, rows.size(), kind + ": one row of its waiters: " + what);
        JsonNode row = rows.get(0);
        long waits = row.path("waits").asLong();
        long underOwner = owned(row, owner);
        long[][] longParks = longParks(row);
        long max = row.path("maxNanos").asLong();
        List<Wait> truth = record.stream().filter(w -> w.what().equals(kind) && w.nanos() >= MS).toList();
        System.out.printf("%s %s: %d parks (%d under %s), %d of 1 ms or more: p50 %.2f p99 %.2f max %.2f ms; the target's own %d waits"
                + " of 1 ms or more: p50 %.2f p99 %.2f max %.2f ms%n", kind, what.substring(0, what.indexOf(':')), waits, underOwner, owner,
                count(longParks), Latency.percentile(longParks, MS, max, 0.5) / 1e6, Latency.percentile(longParks, MS, max, 0.99) / 1e6,
                max / 1e6, truth.size(), percentile(truth, 0.5) / 1e6, percentile(truth, 0.99) / 1e6, percentile(truth, 1.0) / 1e6);
        Set<String> waiters = new HashSet<>();
        row.path("waiters").forEach(w -> {
            waiters.add(w.path("thread").asText());
            assertEquals(virtual, w.path("virtual").asBoolean(), w.toString());
            assertTrue(w.path("threadId").asLong() > 0, w.toString());
        });
        assertAll(kind,
                () -> assertEquals("acquire", row.path("kind").asText()),
                () -> assertFalse(row.path("idle").asBoolean()),
                () -> assertTrue(row.path("site").asText().startsWith("java.util.concurrent.locks.ReentrantLock.lock")
                        && row.path("site").asText().contains("ParkTruthTarget.waitFor"), row.path("site").asText()),
                () -> assertEquals(virtual ? ParkTruthTarget.VIRTUAL_WAITERS : ParkTruthTarget.LOCK_WAITERS, waiters.size(), waiters.toString()),
                () -> assertTrue(underOwner >= 0.9 * waits, underOwner + " of " + waits + " parks under " + owner + ": " + row.path("owners")),
                () -> assertTrue(truth.size() >= 20, truth.size() + " waits recorded"),
                () -> assertTrue(Math.abs(count(longParks) - truth.size()) <= 0.05 * truth.size() + 2 * waiters.size(),
                        count(longParks) + " parks of 1 ms or more, the target's own " + truth.size() + " waits"),
                () -> assertNear(Latency.percentile(longParks, MS, max, 0.5), percentile(truth, 0.5), 0.1, 2 * MS, "p50"),
                () -> assertNear(Latency.percentile(longParks, MS, max, 0.99), percentile(truth, 0.99), 0.1, 3 * MS, "p99"),
                () -> assertNear(max, percentile(truth, 1.0), 0.1, 3 * MS, "max"),
                () -> checkOwnerStacks(ownerStacks, row.path("blocker").asText(), owner, kind));
    }

    /**
     * The owner's stacks read as waits on its lock began: the owner holds the lock in
     * ParkTruthTarget.holdOwned and nowhere else, and a read is kept only while it still owns the lock,
     * so nearly every read is there (the rest: between its lock() returning and holdOwned, or
     * holdOwned and unlock()). A virtual owner's too, mounted or not.
     */
    private static void checkOwnerStacks(JsonNode ownerStacks, String blocker, String owner, String kind) {
        long reads = 0;
        long inHold = 0;
        List<String> elsewhere = new ArrayList<>();
        for (JsonNode o : ownerStacks) {
            if (o.path("blocker").asText().equals(blocker) && o.path("thread").asText().equals(owner)) {
                reads += o.path("reads").asLong();
                boolean held = false;
                for (JsonNode f : o.path("stack")) {
                    held |= f.asText().startsWith("dev.jvmticli.targets.ParkTruthTarget.holdOwned");
                }
                inHold += held ? o.path("reads").asLong() : 0;
                if (!held) {
                    elsewhere.add(o.toString());
                }
            }
        }
        System.out.printf("%s: %d reads of %s's stack as a wait began, %d in holdOwned%n", kind, reads, owner, inHold);
        assertTrue(reads >= 10, kind + ": " + reads + " reads of the owner's stack: " + ownerStacks);
        assertTrue(inHold >= 0.9 * reads, kind + ": " + inHold + " of " + reads + " reads in holdOwned; elsewhere: " + elsewhere);
    }

    /**
     * 50 borrowers waiting for one of 4 connections: waits for another thread (not idle) at the pool's
     * queue, every borrower named, no owner, parked nearly all the window but for the 4 that hold a connection. Their turns at the queue's own
     * lock are waits for another thread too.
     */
    private static void checkBorrowers(JsonNode sites, long since, long until, String what) {
        List<JsonNode> rows = rowsOf(sites, "borrower-");
        assertFalse(rows.isEmpty(), "no row of the borrowers: " + what);
        Set<String> waiters = new HashSet<>();
        long parked = 0;
        for (JsonNode row : rows) {
            String site = row.path("site").asText();
            assertFalse(row.path("idle").asBoolean(), row.toString());
            if (row.path("kind").asText().equals("signal")) {
                assertAll("borrowers " + row,
                        () -> assertTrue(site.startsWith("java.util.concurrent.ArrayBlockingQueue.take")
                                && site.contains("ParkTruthTarget$ConnectionPool.borrow"), site),
                        () -> assertEquals(0, row.path("owners").size()));
                row.path("waiters").forEach(w -> waiters.add(w.path("thread").asText()));
                parked += row.path("totalNanos").asLong();
            } else { // the queue's own lock, which borrowers and givers take in turns
                assertTrue(row.path("kind").asText().equals("acquire") && site.startsWith("java.util.concurrent.ArrayBlockingQueue."), row.toString());
            }
        }
        // at most POOL_SIZE borrowers hold a connection at once: the others wait, nearly all the window long
        // (a borrower may starve for seconds in the queue's unfair hand-over, so its borrow is not in the target's record)
        long window = until - since;
        assertEquals(ParkTruthTarget.BORROWERS, waiters.size(), waiters.toString());
        assertTrue(parked <= ParkTruthTarget.BORROWERS * window && parked >= 0.7 * (ParkTruthTarget.BORROWERS - ParkTruthTarget.POOL_SIZE) * window,
                parked / 1e6 + " ms parked at the pool in a window of " + window / 1e6 + " ms");
    }

    /** The pool's 4 workers wait for work in getTask: idle, apart from every wait for another thread. */
    private static void checkIdleWorkers(JsonNode sites, String what) {
        List<JsonNode> rows = rowsOf(sites, "worker-");
        assertFalse(rows.isEmpty(), "no row of the workers: " + what);
        for (JsonNode row : rows) {
            assertTrue(row.path("idle").asBoolean() && row.path("site").asText().startsWith("java.util.concurrent.LinkedBlockingQueue.take"),
                    row.toString());
        }
        // and none of the target's waits for another thread is idle (the JDK's own idle waits may be: a carrier's, the unparker's)
        for (String prefix : List.of("lock-", "borrower-", "permit-", "v-")) {
            for (JsonNode row : rowsOf(sites, prefix)) {
                assertFalse(row.path("idle").asBoolean(), "idle: " + row);
            }
        }
    }

    /** A Semaphore of 2 permits among 4 threads: acquire with no owner, not idle, its longest wait no longer than the target's. */
    private static void checkSemaphore(JsonNode sites, List<Wait> record, String what) {
        List<JsonNode> rows = rowsOf(sites, "permit-").stream().filter(r -> r.path("site").asText().contains("ParkTruthTarget.holdPermits")).toList();
        assertEquals(1, rows.size(), "one row of the semaphore's waiters: " + what);
        JsonNode row = rows.get(0);
        List<Wait> truth = record.stream().filter(w -> w.what().equals("permit")).toList();
        long waited = truth.stream().filter(w -> w.nanos() >= MS).count();
        assertAll("semaphore " + row,
                () -> assertEquals("acquire", row.path("kind").asText()),
                () -> assertFalse(row.path("idle").asBoolean()),
                () -> assertEquals(row.path("waits").asLong(), row.path("noOwner").asLong()),
                () -> assertTrue(row.path("site").asText().startsWith("java.util.concurrent.Semaphore.acquireUninterruptibly")
                        && row.path("site").asText().contains("ParkTruthTarget.holdPermits"), row.path("site").asText()),
                () -> assertTrue(row.path("waits").asLong() >= 0.9 * waited - 4,
                        row.path("waits") + " parks, the target waited at least 1 ms " + waited + " times"),
                () -> assertTrue(row.path("maxNanos").asLong() <= percentile(truth, 1.0) + MS, row.path("maxNanos") + " vs " + percentile(truth, 1.0)));
    }

    /**
     * A latch made by hand parks with LockSupport.park() and no blocker: one row at its await, marked no
     * blocker, not idle, its one waiter, no owner; as many parks as the target recorded (but for a park at
     * each end of the window) and their p50, p99 and max as the target's.
     */
    private static void checkNoBlocker(JsonNode sites, List<Wait> record, String what) {
        List<JsonNode> rows = rowsOf(sites, "latch-waiter").stream()
                .filter(r -> r.path("site").asText().contains("ParkTruthTarget$HandMadeLatch.await")).toList();
        assertEquals(1, rows.size(), "one row of the hand-made latch: " + what);
        JsonNode row = rows.get(0);
        List<Wait> truth = record.stream().filter(w -> w.what().equals("latch")).toList();
        long waits = row.path("waits").asLong();
        System.out.printf("latch %s: %d parks, p50 %.2f p99 %.2f max %.2f ms; the target's own %d: p50 %.2f p99 %.2f max %.2f ms%n",
                what.substring(0, what.indexOf(':')), waits, row.path("p50Nanos").asLong() / 1e6, row.path("p99Nanos").asLong() / 1e6,
                row.path("maxNanos").asLong() / 1e6, truth.size(), percentile(truth, 0.5) / 1e6, percentile(truth, 0.99) / 1e6,
                percentile(truth, 1.0) / 1e6);
        assertAll("latch " + row,
                () -> assertEquals("no blocker", row.path("blocker").asText()),
                () -> assertEquals("park", row.path("kind").asText()),
                () -> assertFalse(row.path("idle").asBoolean()),
                () -> assertTrue(row.path("site").asText().startsWith("java.util.concurrent.locks.LockSupport.park:"), row.path("site").asText()),
                () -> assertEquals(1, row.path("waiters").size()),
                () -> assertEquals(0, row.path("owners").size()),
                () -> assertEquals(waits, row.path("noOwner").asLong()),
                () -> assertTrue(truth.size() >= 50, truth.size() + " parks recorded"),
                () -> assertTrue(Math.abs(waits - truth.size()) <= 2, waits + " parks, the target's own " + truth.size()),
                () -> assertNear(row.path("p50Nanos").asLong(), percentile(truth, 0.5), 0.1, 2 * MS, "p50"),
                () -> assertNear(row.path("p99Nanos").asLong(), percentile(truth, 0.99), 0.1, 3 * MS, "p99"),
                () -> assertNear(row.path("maxNanos").asLong(), percentile(truth, 1.0), 0.1, 3 * MS, "max"));
    }

    /**
     * Each initialization of PinsItsCarrier parks the virtual thread on its carrier PIN_MILLIS: as many
     * episodes as the target recorded, each as long, with the class's static initializer on the stack.
     */
    private static void checkPinned(JsonNode pinned, List<Wait> record, String what) {
        List<Wait> truth = record.stream().filter(w -> w.what().equals("pinned")).toList();
        long count = pinned.path("count").asLong();
        assertAll("pinned " + pinned,
                () -> assertTrue(pinned.path("watched").asBoolean()),
                () -> assertTrue(truth.size() >= 5, truth.size() + " pinned initializations recorded"),
                () -> assertTrue(Math.abs(count - truth.size()) <= 1, count + " episodes, the target's own " + truth.size()),
                () -> assertTrue(pinned.path("maxNanos").asLong() <= percentile(truth, 1.0)
                        && pinned.path("maxNanos").asLong() >= ParkTruthTarget.PIN_MILLIS * MS * 0.9, pinned.path("maxNanos").toString()),
                () -> {
                    Predicate<JsonNode> atInit = s -> s.path("stack").toString().contains("ParkTruthTarget$PinsItsCarrier.<clinit>");
                    JsonNode first = pinned.path("stacks").get(0);
                    assertTrue(first != null && atInit.test(first) && first.path("threads").toString().contains("v-pinned"), String.valueOf(first));
                });
    }
}
