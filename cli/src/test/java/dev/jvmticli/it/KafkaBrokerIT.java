package dev.jvmticli.it;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.jvmticli.targets.KafkaBroker;
import dev.jvmticli.testing.CliRun;
import dev.jvmticli.testing.CliRun.Result;
import dev.jvmticli.testing.DebianRoots;
import dev.jvmticli.testing.DumpedThread;
import dev.jvmticli.testing.JniWarningCheck;
import dev.jvmticli.testing.Jdks;
import dev.jvmticli.testing.Json;
import dev.jvmticli.testing.OtherUser;
import dev.jvmticli.testing.Proc;
import dev.jvmticli.testing.TargetJvm;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * An Apache Kafka 4.4 broker (KRaft, one node both broker and controller, Maven Central's jars,
 * which the kafka-libs module copies: they stay off this JVM's class path) under the load of
 * Kafka's own ProducerPerformance and ConsumerPerformance on 127.0.0.1, on JDK 17 and 25. One
 * broker per JDK serves every check, each against what the tool does not say itself: jstack -l
 * taken right after, the broker's -Xlog:safepoint, /proc, the JNI checker's output, and
 * async-profiler loaded standalone by jcmd (last, as its own library prints JNI warnings of its
 * own). Figures in docs/performance.md (on a Kafka broker).
 */
class KafkaBrokerIT {
    private static final Path KAFKA_LIBS = Path.of(System.getProperty("user.dir")).resolve("../kafka-libs/target/kafka-libs").normalize();
    private static final Path ASYNC_PROFILER = Path.of(System.getProperty("user.dir"))
            .resolve("../native/target/async-profiler/linux-x64/libasyncProfiler.so").normalize();
    /** The producer's pace: enough to keep request handlers and network threads busy on 2 shared cores. */
    private static final int RECORDS_PER_SECOND = 1000;
    /** Longer than all checks take; the tools stop by themselves after it. */
    private static final int LONGEST_LOAD_SECONDS = 300;
    private static final Duration BROKER_START = Duration.ofSeconds(120);
    /** summary.md's first line when it names a lock: how many threads wait on it. */
    private static final Pattern MAIN_WAIT = Pattern.compile("^\\*\\*Most threads wait for:\\*\\* (\\d+) threads? ");
    private static final Pattern SAFEPOINT = HeapIT.SAFEPOINT;
    private static final long CLOCK_TICK_NANOS = 10_000_000L;

    /** JDK 17 and 25 of this machine, and OpenJDK 21 of the Debian 13 root where this runs as root (which makes roots). */
    static Stream<Place> places() {
        Stream<Place> here = Jdks.stream().filter(j -> j.feature() == 17 || j.feature() == 25).map(j -> new Place(j, null));
        Stream<Place> inRoot = OtherUser.isRoot()
                ? DebianRoots.jdks().filter(j -> j.suite().equals("trixie") && j.feature() == 21).map(j -> new Place(j.inside(), j))
                : Stream.empty();
        return Stream.concat(here, inRoot);
    }

    /**
     * Where a broker runs: a JDK of this machine, or one of a Debian root, in a mount namespace of
     * its own (as DebianRoots.ownMountNamespace) into whose /tmp the test's directory, the Kafka
     * jars, the test classes and async-profiler's library are bound.
     */
    record Place(Jdks.Jdk jdk, DebianRoots.RootJdk root) {
        private static final String INSIDE = "/tmp/kafka-broker";

        /** A file of the test's directory as the broker's JVM sees it. */
        String seen(Path dir, Path file) {
            return root == null ? file.toString() : INSIDE + "/" + dir.relativize(file);
        }

        List<String> wrapper(Path dir) {
            if (root == null) {
                return List.of();
            }
            return List.of("unshare", "--mount", "--fork", "--kill-child", "--propagation", "private", "sh", "-c",
                    "mount -t proc proc \"$0/proc\" && mount -t tmpfs -o mode=1777 tmpfs \"$0/tmp\""
                            + " && mkdir \"$0" + INSIDE + "\" \"$0/tmp/kafka-libs\" \"$0/tmp/classes\" \"$0/tmp/async-profiler\""
                            + " && mount --bind \"$1\" \"$0" + INSIDE + "\" && mount --bind \"$2\" \"$0/tmp/kafka-libs\""
                            + " && mount --bind \"$3\" \"$0/tmp/classes\" && mount --bind \"$4\" \"$0/tmp/async-profiler\""
                            + " && shift 4 && exec chroot \"$0\" \"$@\"",
                    root.root().toString(), dir.toString(), KAFKA_LIBS.toString(), TargetJvm.testClasses().toString(),
                    ASYNC_PROFILER.getParent().toString());
        }

        String classPath() {
            return root == null ? TargetJvm.testClasses() + ":" + KAFKA_LIBS.resolve("*") : "/tmp/classes:/tmp/kafka-libs/*";
        }

        String asyncProfiler() {
            return root == null ? ASYNC_PROFILER.toString() : "/tmp/async-profiler/" + ASYNC_PROFILER.getFileName();
        }

        /** A tool of the broker's JDK (jstack, jcmd) run on it: inside its root and mount namespace where it has one. */
        String tool(long pid, String tool, String... args) throws Exception {
            if (root != null) {
                return DebianRoots.toolOutput(root, pid, tool, args);
            }
            List<String> command = new ArrayList<>(List.of(jdk.home().resolve("bin").resolve(tool).toString()));
            command.addAll(List.of(args));
            Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
            CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> {
                try {
                    return new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
            assertTrue(process.waitFor(60, TimeUnit.SECONDS), tool + " ended in 60 s");
            assertEquals(0, process.exitValue(), tool + " " + String.join(" ", args) + ": " + out.get());
            return out.get();
        }

        @Override
        public String toString() {
            return root == null ? jdk.toString() : root.toString();
        }
    }

    /** The broker JVM, its client port and the file its -Xlog:safepoint writes. */
    record Broker(TargetJvm target, int port, Path safepointLog) {
        String pid() {
            return Long.toString(target.pid());
        }

        long logLength() throws IOException {
            return Files.size(safepointLog);
        }

        /** The safepoints the broker logged since the log had the length given: name and total nanoseconds. */
        List<Map.Entry<String, Long>> safepointsSince(long length) throws IOException {
            return safepointsBetween(length, Long.MAX_VALUE);
        }

        /** The safepoints the broker logged between two lengths of its log. */
        List<Map.Entry<String, Long>> safepointsBetween(long from, long to) throws IOException {
            String all = Files.readString(safepointLog);
            List<Map.Entry<String, Long>> safepoints = new ArrayList<>();
            for (String line : all.substring((int) Math.min(from, all.length()), (int) Math.min(to, all.length())).split("\n")) {
                Matcher m = SAFEPOINT.matcher(line);
                if (m.find()) {
                    safepoints.add(Map.entry(m.group(1), Long.parseLong(m.group(2))));
                }
            }
            return safepoints;
        }
    }

    @ParameterizedTest
    @MethodSource("places")
    void aLoadedBrokerIsToldRight(Place place) throws Exception {
        assertTrue(Files.isDirectory(KAFKA_LIBS), KAFKA_LIBS + " is missing: the kafka-libs module copies Kafka's jars there");
        long start = System.nanoTime();
        Path dir = Files.createTempDirectory("kafka-broker");
        int port = freePort();
        try (TargetJvm target = startBroker(place, dir, port).profiled()) {
            Broker broker = new Broker(target, port, dir.resolve("safepoints.log"));
            try (KafkaLoad load = KafkaLoad.start(broker.port(), dir)) {
                load.awaitFlowing(Duration.ofSeconds(90));
                System.out.printf("%s: broker up and load flowing after %.1f s%n", place, (System.nanoTime() - start) / 1e9);
                Map<String, Double> ourShares = new TreeMap<>();
                assertAll(place.toString(),
                        () -> latchWaitsAreNotContention(broker),
                        () -> stacksAgainstJstack(place, broker),
                        () -> cpuWithinProc(broker),
                        () -> heapPausesAreTheLoggedOnes(broker),
                        () -> ourShares.putAll(profileShares(broker)),
                        () -> noOwnThreadInTheDumpsSummary(broker),
                        () -> noJniWarningFromAnyCommand(broker),
                        () -> sharesAsStandaloneAsyncProfilers(place, broker, dir, ourShares),
                        () -> assertTrue(load.running(), "the load ran until the end of the checks:\n" + load));
            }
        } finally {
            deleteTree(dir);
            System.out.printf("%s: KafkaBrokerIT took %.1f s%n", place, (System.nanoTime() - start) / 1e9);
        }
    }

    private static TargetJvm startBroker(Place place, Path dir, int port) throws IOException {
        int controllerPort = freePort();
        Path config = dir.resolve("server.properties");
        Files.writeString(config, String.join("\n",
                "process.roles=broker,controller",
                "node.id=1",
                "controller.quorum.voters=1@127.0.0.1:" + controllerPort,
                "listeners=PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort,
                "advertised.listeners=PLAINTEXT://127.0.0.1:" + port,
                "controller.listener.names=CONTROLLER",
                "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
                "inter.broker.listener.name=PLAINTEXT",
                "log.dirs=" + place.seen(dir, dir.resolve("data")),
                "num.partitions=4",
                "offsets.topic.replication.factor=1",
                "transaction.state.log.replication.factor=1",
                "transaction.state.log.min.isr=1",
                "group.initial.rebalance.delay.ms=0",
                ""));
        return TargetJvm.startUntil(BROKER_START, place.wrapper(dir), place.classPath(), place.jdk(), KafkaBroker.class,
                // all tiers, as a server runs: C2's compiled frames are what a JVMTI heap walk's escape barrier deoptimizes
                List.of("-XX:TieredStopAtLevel=4", "-Xms256m", "-Xmx512m", "-XX:+UseG1GC", "-Xlog:safepoint:file=" + place.seen(dir, dir.resolve("safepoints.log"))),
                place.seen(dir, config), Integer.toString(port));
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    /**
     * Kafka's ShutdownableThread.pause waits on a CountDownLatch (the log cleaner's back-off): a
     * shared acquire of what nobody owns, never "waiting to enter", never a contended lock.
     */
    private static void latchWaitsAreNotContention(Broker broker) throws Exception {
        List<String> latchViews = new ArrayList<>();
        for (int snapshot = 0; snapshot < 3 && latchViews.isEmpty(); snapshot++) {
            for (JsonNode lock : Json.parse(cli("monitors", broker.pid(), "--by-lock", "--json").out()).path("locks")) {
                String className = lock.path("lock").path("className").asText();
                if (!className.startsWith("java.util.concurrent.CountDownLatch") && !className.startsWith("java.util.concurrent.Semaphore")) {
                    continue;
                }
                String view = className + ": owner " + lock.path("owner") + ", entering " + names(lock.path("entering"))
                        + ", acquiring what nobody owns " + names(lock.path("releaseWaiters"));
                assertTrue(lock.path("owner").isNull() && lock.path("entering").isEmpty(), "a latch or semaphore with an owner or entrants: " + view);
                if (!lock.path("releaseWaiters").isEmpty()) {
                    latchViews.add(view);
                }
            }
        }
        System.out.println("monitors --by-lock: " + latchViews);
        assertTrue(latchViews.stream().anyMatch(v -> v.contains("kafka-log-cleaner-thread-0")),
                "the log cleaner's back-off wait on its latch is seen in 3 snapshots: " + latchViews);
    }

    /** The dump's summary: no latch as its main wait or among the locks most threads wait on, no agent thread among the busiest. */
    private static void noOwnThreadInTheDumpsSummary(Broker broker) throws Exception {
        Path dump = Files.createTempDirectory("kafka-dump");
        try {
            cli("dump", broker.pid(), "--out", dump.toString(), "--interval", "1s", "--profile", "3s");
            String summary = Files.readString(dump.resolve("summary.md"));
            String first = summary.lines().findFirst().orElse("");
            String contended = section(summary, "## Locks most threads wait on");
            String busiest = section(summary, "## Busiest threads");
            System.out.println("summary.md, first line and locks most threads wait on:\n" + first + "\n" + contended);
            assertTrue(!first.contains("CountDownLatch") && !first.contains("Semaphore"), "a latch as the main wait:\n" + first);
            // the request handlers waiting for the next request (their queue's poll, in their own loop) are idle, not contended
            assertFalse(first.contains("RequestChannel.receiveRequest"), "the request handlers' wait for work as the main wait:\n" + first);
            Matcher main = MAIN_WAIT.matcher(first);
            assertTrue(first.startsWith("**Most threads wait for:** nothing") || main.find()
                    && (Integer.parseInt(main.group(1)) > 1 || first.contains("; held by")),
                    "the main wait is neither a lock two threads wait on nor one an owner holds:\n" + first);
            // a latch's waiters wait for what nobody owns: never "waiting to enter", never ranked above a lock more threads wait on
            List<String> rows = contended.lines().filter(l -> l.startsWith("| `")).toList();
            for (int i = 0; i < rows.size(); i++) {
                String row = rows.get(i);
                if (row.contains("CountDownLatch") || row.contains("Semaphore")) {
                    assertTrue(row.matches(".*\\| none \\| 0 \\| \\d+ \\|$"), "a latch with an owner or waiting to enter:\n" + contended);
                    assertTrue(i == 0 || waitingInAll(rows.get(i - 1)) >= waitingInAll(row), "a latch ranked above more waiters:\n" + contended);
                }
            }
            assertTrue(busiest.lines().filter(l -> l.startsWith("| `")).count() > 0, "no busiest thread:\n" + busiest);
            assertTrue(busiest.lines().filter(l -> l.startsWith("| `")).noneMatch(l -> l.contains("jvmti-cli")),
                    "the agent's own thread among the broker's busiest:\n" + busiest);
            List<String> profile = Files.readAllLines(dump.resolve("profile/collapsed.txt"));
            List<String> agents = profile.stream().filter(l -> l.startsWith("[jvmti-cli agent")).toList();
            long ownWork = profile.stream().filter(l -> l.startsWith(OWN_WORK)).count();
            System.out.printf("dump --profile 3s: %d stacks in profile/collapsed.txt, %d of them under the tool's own work's root%n", profile.size(), ownWork);
            assertEquals(List.of(), agents, "the agent's thread as one of the broker's in the dump's profile");
        } finally {
            deleteTree(dump);
        }
    }

    /** The last column of a row of summary.md's lock table: how many threads wait on the lock in all. */
    private static int waitingInAll(String row) {
        String[] cells = row.split("\\|");
        return Integer.parseInt(cells[cells.length - 1].strip());
    }

    private static String section(String markdown, String heading) {
        int from = markdown.indexOf(heading);
        assertTrue(from >= 0, "no " + heading + " in:\n" + markdown);
        int to = markdown.indexOf("\n## ", from + 1);
        return markdown.substring(from, to < 0 ? markdown.length() : to);
    }

    /**
     * Three pairs of `stacks -l` and `jstack -l` taken right after: every thread's native id and
     * tid the same; every list of synchronizers known, at the same frames the same synchronizers
     * and, where a jstack right before agrees with the one after, the same state; no safepoint of a kind jstack -l does not cause either (no heap walk
     * of its own, no DeoptimizeFrame). The safepoints each logged are printed (docs/performance.md).
     */
    private static void stacksAgainstJstack(Place place, Broker broker) throws Exception {
        List<String> wrong = new ArrayList<>();
        for (int pair = 1; pair <= 3; pair++) {
            Map<Long, DumpedThread> earlier = new HashMap<>();
            DumpedThread.parse(place.tool(broker.target().pid(), "jstack", broker.pid())).forEach(t -> earlier.put(t.id(), t));
            long before = broker.logLength();
            String text = cli("stacks", "-l", broker.pid()).out();
            long between = broker.logLength();
            String jstackText = place.tool(broker.target().pid(), "jstack", "-l", broker.pid());
            List<Map.Entry<String, Long>> ourPauses = broker.safepointsBetween(before, between);
            List<Map.Entry<String, Long>> jstackPauses = broker.safepointsSince(between);
            List<DumpedThread> ours = DumpedThread.parse(text);
            Map<Long, DumpedThread> theirs = new HashMap<>();
            DumpedThread.parse(jstackText).forEach(t -> theirs.put(t.id(), t));
            int compared = 0;
            int sameFrames = 0;
            int notKnown = 0;
            int listed = 0;
            for (DumpedThread t : ours) {
                notKnown += t.notKnown() ? 1 : 0;
                DumpedThread j = theirs.get(t.id());
                if (j == null) {
                    continue; // ended in between
                }
                compared++;
                if (t.nid() != j.nid() || !t.tid().equals(j.tid())) {
                    wrong.add("pair " + pair + ": \"" + t.name() + "\" nid " + t.nid() + " tid " + t.tid() + ", jstack's " + j.nid() + " " + j.tid());
                }
                if (!t.frames().equals(j.frames())) {
                    continue; // it ran in between
                }
                sameFrames++;
                // a thread leaving park or wait changes its state before its frames: compared where
                // a plain jstack right before saw the same frames in the same state as jstack -l after
                DumpedThread e = earlier.get(t.id());
                boolean settled = e != null && e.frames().equals(j.frames()) && e.state().equals(j.state());
                if (settled && !t.state().equals(j.state())) {
                    wrong.add("pair " + pair + ": \"" + t.name() + "\" at the same frames " + t.state() + ", jstack's " + j.state());
                }
                if (!t.notKnown()) {
                    listed++;
                    if (!new TreeSet<>(t.synchronizers()).equals(new TreeSet<>(j.synchronizers()))) {
                        wrong.add("pair " + pair + ": \"" + t.name() + "\" owns " + (t.saysNone() ? "None" : t.synchronizers())
                                + ", jstack -l " + (j.saysNone() ? "None" : j.synchronizers()));
                    }
                }
            }
            System.out.printf("%s, pair %d: stacks -l listed %d threads, %d of them \"not known\", %d with their synchronizers;"
                            + " %d also in jstack -l, %d at the same frames; safepoints logged while stacks -l ran: %s, while jstack -l ran: %s%n",
                    place, pair, ours.size(), notKnown, ours.size() - notKnown, compared, sameFrames, summary(ourPauses), summary(jstackPauses));
            assertEquals(0, notKnown, "pair " + pair + ": threads whose synchronizers stacks -l did not know");
            for (Map.Entry<String, Long> safepoint : ourPauses) {
                if (safepoint.getKey().equals("HeapIterateOperation") || safepoint.getKey().equals("DeoptimizeFrame")) {
                    wrong.add("pair " + pair + ": stacks -l caused a " + safepoint.getKey() + " safepoint: " + summary(ourPauses));
                }
            }
            assertTrue(compared >= 60 && sameFrames >= 20 && listed > 0,
                    "pair " + pair + ": " + compared + " threads in both dumps, " + sameFrames + " at the same frames, " + listed + " with synchronizers listed");
        }
        assertTrue(wrong.isEmpty(), String.join("\n", wrong));
    }

    /** "N: NAME a ms, ..." with the total. */
    private static String summary(List<Map.Entry<String, Long>> safepoints) {
        long total = safepoints.stream().mapToLong(Map.Entry::getValue).sum();
        StringBuilder text = new StringBuilder(safepoints.size() + " (" + String.format("%.1f ms", total / 1e6));
        Map<String, Integer> byName = new TreeMap<>();
        safepoints.forEach(s -> byName.merge(s.getKey(), 1, Integer::sum));
        byName.forEach((name, count) -> text.append(", ").append(count).append("x ").append(name));
        return text.append(")").toString();
    }

    /** Every thread's CPU time as `threads` reports it lies between what /proc counted for it right before and right after. */
    private static void cpuWithinProc(Broker broker) throws Exception {
        Map<Long, Long> before = Proc.cpuTicksByTask(broker.target().pid());
        JsonNode threads = Json.parse(cli("threads", broker.pid(), "--json").out()).path("threads");
        Map<Long, Long> after = Proc.cpuTicksByTask(broker.target().pid());
        List<String> outside = new ArrayList<>();
        int compared = 0;
        for (JsonNode thread : threads) {
            long nid = thread.path("nid").asLong();
            if (!before.containsKey(nid) || !after.containsKey(nid) || !thread.has("cpuNanos")) {
                continue;
            }
            compared++;
            long cpu = thread.path("cpuNanos").asLong();
            // /proc rounds user and system time down to clock ticks each: their sum may be 2 ticks short
            if (cpu < before.get(nid) * CLOCK_TICK_NANOS || cpu > (after.get(nid) + 2) * CLOCK_TICK_NANOS) {
                outside.add("\"" + thread.path("name").asText() + "\" nid " + nid + ": " + cpu + " ns, /proc " + before.get(nid) + " then "
                        + after.get(nid) + " ticks");
            }
        }
        System.out.println("threads: CPU of " + compared + " threads compared with /proc, " + outside.size() + " outside");
        assertTrue(compared >= 60, compared + " threads compared");
        assertTrue(outside.isEmpty(), String.join("\n", outside));
    }

    /**
     * Each histogram's pause is the one the broker logged for its walk (GC_HeapInspection), within
     * rounding, never more than the command took; the GC it waited for is counted apart. Where the
     * JVM's totals still lacked an earlier pause's time, the agent says the pause cannot be told:
     * then the broker did log another safepoint since the walk before, and that may happen once.
     */
    private static void heapPausesAreTheLoggedOnes(Broker broker) throws Exception {
        long before = broker.logLength();
        JsonNode histograms = Json.parse(cli("heap", broker.pid(), "--count", "2", "--interval", "2s", "--json").out()).path("histograms");
        List<Map.Entry<String, Long>> logged = broker.safepointsSince(before);
        List<Integer> walks = new ArrayList<>();
        for (int i = 0; i < logged.size(); i++) {
            if (logged.get(i).getKey().equals("GC_HeapInspection")) {
                walks.add(i);
            }
        }
        assertEquals(2, walks.size(), "one heap walk logged per histogram: " + logged);
        int untold = 0;
        for (int i = 0; i < 2; i++) {
            JsonNode histogram = histograms.get(i);
            JsonNode waited = histogram.path("afterGc");
            long walk = logged.get(walks.get(i)).getValue();
            if (histogram.path("earlierPauseIncluded").asBoolean()) {
                untold++;
                int since = i == 0 ? 0 : walks.get(i - 1) + 1;
                System.out.printf("heap --count 2, histogram %d: pause untold (an earlier pause in the totals); the broker logged %.1f ms"
                        + " for the walk after %s%n", i + 1, walk / 1e6, logged.subList(since, walks.get(i)));
                assertTrue(walks.get(i) > since, "an earlier pause the broker logged: " + logged);
                assertTrue(histogram.path("safepoints").isNull() || histogram.path("safepoints").isMissingNode(), histogram.toString());
                continue;
            }
            JsonNode own = histogram.path("safepoints");
            long reported = own.path("atSafepointMillis").asLong() + own.path("reachingMillis").asLong();
            System.out.printf("heap --count 2, histogram %d: reported %d ms in %d safepoint(s), the broker logged %.1f ms for the walk;"
                            + " the command took %.1f ms; the GC waited for: %s%n", i + 1, reported, own.path("count").asInt(), walk / 1e6,
                    histogram.path("elapsedNanos").asLong() / 1e6, waited);
            assertTrue(reported <= histogram.path("elapsedNanos").asLong() / 1_000_000 + 3, "a pause no longer than the command: " + histogram);
            assertEquals(1, own.path("count").asInt(), "the histogram's own safepoint only: " + own);
            assertTrue(Math.abs(reported - walk / 1_000_000) <= 2 + walk / 1_000_000 / 20, "histogram " + (i + 1) + ": reported " + own
                    + ", logged " + walk + " ns");
            assertTrue(!waited.path("gcCame").asBoolean() || waited.path("safepoints").path("count").asInt() >= 1,
                    "the GC waited for is counted apart: " + waited);
        }
        assertTrue(untold <= 1, "the pause told for at least one histogram");
    }

    /** Our CPU profile's share per thread group (wall too, for the JNI check), and no root frame of the agent's. */
    private static Map<String, Double> profileShares(Broker broker) {
        String collapsed = cli("profile", broker.pid(), "--duration", "5s", "--interval", "2ms", "--threads", "--collapsed").out();
        cli("profile", broker.pid(), "--event", "wall", "--duration", "2s");
        assertTrue(collapsed.lines().noneMatch(l -> l.startsWith("[jvmti-cli agent")), "the agent's thread as one of the broker's in its profile");
        return shares(collapsed);
    }

    /**
     * HotSpot's own threads by name (numbers as {@link #shares} writes them; standalone
     * async-profiler names the compiler threads by their kernel name, cut to 15 bytes): how much
     * the JIT compiles and the GC collects changes between two windows one after the other, as the
     * broker warms up, whoever samples them.
     */
    private static final Pattern JVM_THREADS = Pattern.compile("^(CN CompilerThre|GC Thread|GN |VM |Service Thread|Monitor Deflation|Sweeper)");

    /**
     * Samples per group of Java threads (the root frame's thread name, its numbers and tid left
     * out), as shares of the Java threads' samples.
     */
    static Map<String, Double> shares(String collapsed) {
        Map<String, Long> counts = new TreeMap<>();
        for (String line : collapsed.lines().toList()) {
            int space = line.lastIndexOf(' ');
            int rootEnd = line.indexOf(';');
            if (space < 0 || !line.startsWith("[") || line.startsWith(OWN_WORK)) {
                continue;
            }
            String root = line.substring(1, rootEnd < 0 ? space : rootEnd).replaceAll(" tid=\\d+]?$", "").replaceAll("\\d+", "N");
            if (!JVM_THREADS.matcher(root).find()) {
                counts.merge(root, Long.parseLong(line.substring(space + 1)), Long::sum);
            }
        }
        long total = counts.values().stream().mapToLong(Long::longValue).sum();
        Map<String, Double> shares = new TreeMap<>();
        counts.forEach((group, n) -> shares.put(group, (double) n / total));
        shares.put(TOTAL, (double) total);
        return shares;
    }

    private static final String TOTAL = "(samples)";
    /** The root frame under which profile's collapsed stacks put the tool's own work, apart from the target's threads. */
    private static final String OWN_WORK = "[jvmti-cli's own work";

    /** Every command so far ran in a broker with -Xcheck:jni: not one line of the checker's. */
    private static void noJniWarningFromAnyCommand(Broker broker) {
        assertEquals(List.of(), JniWarningCheck.warnings(broker.target()), "the JNI checker's warnings in the broker's output");
    }

    /**
     * async-profiler on its own, loaded by jcmd with its options quoted (else it does not start),
     * over as long as ours right after: the groups of Java threads with 5% of the Java threads'
     * samples or more in either get shares within sampling noise (4 sigma) of each other.
     */
    private static void sharesAsStandaloneAsyncProfilers(Place place, Broker broker, Path dir, Map<String, Double> ours) throws Exception {
        Path output = dir.resolve("standalone.collapsed");
        broker.target().anotherAgentLoaded();
        String options = "\"start,event=cpu,interval=2ms,threads,collapsed,timeout=5,file=" + place.seen(dir, output) + "\"";
        String said = place.tool(broker.target().pid(), "jcmd", broker.pid(), "JVMTI.agent_load", place.asyncProfiler(), options);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while ((!Files.exists(output) || Files.size(output) == 0) && System.nanoTime() < deadline) {
            Thread.sleep(200);
        }
        Thread.sleep(500); // written at once by its stop, but give the file a moment to close
        Map<String, Double> theirs = shares(Files.exists(output) ? Files.readString(output) : "");
        double n1 = ours.getOrDefault(TOTAL, 0.0);
        double n2 = theirs.getOrDefault(TOTAL, 0.0);
        assertTrue(n2 >= 50, "standalone async-profiler took " + n2 + " samples (jcmd said: " + said.strip() + ")");
        assertTrue(n1 >= 50, "ours took " + n1 + " samples");
        List<String> apart = new ArrayList<>();
        StringBuilder table = new StringBuilder();
        TreeSet<String> groups = new TreeSet<>(ours.keySet());
        groups.addAll(theirs.keySet());
        groups.remove(TOTAL);
        for (String group : groups) {
            double a = ours.getOrDefault(group, 0.0);
            double b = theirs.getOrDefault(group, 0.0);
            if (Math.max(a, b) < 0.05) {
                continue;
            }
            double p = (a * n1 + b * n2) / (n1 + n2);
            double noise = 4 * Math.sqrt(p * (1 - p) * (1 / n1 + 1 / n2));
            table.append(String.format("  %-60s ours %5.1f%%, standalone %5.1f%% (4 sigma %.1f%%)%n", group, 100 * a, 100 * b, 100 * noise));
            if (Math.abs(a - b) > noise) {
                apart.add(group);
            }
        }
        System.out.printf("%s: CPU shares per group of Java threads, ours over %.0f samples, standalone async-profiler's over %.0f:%n%s", place, n1, n2, table);
        assertTrue(apart.isEmpty(), "shares further apart than sampling noise: " + apart + "\n" + table);
    }

    private static List<String> names(JsonNode threads) {
        List<String> names = new ArrayList<>();
        threads.forEach(t -> names.add(t.path("name").asText()));
        return names;
    }

    private static Result cli(String... args) {
        Result result = CliRun.run(args);
        assertEquals(0, result.exit(), String.join(" ", args) + ": " + result);
        return result;
    }

    private static void deleteTree(Path root) throws IOException {
        try (Stream<Path> files = Files.walk(root)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    /**
     * Kafka's own load tools in JVMs of their own: ProducerPerformance at a bounded pace and
     * ConsumerPerformance reading the same topic, both stopping by themselves after
     * {@link #LONGEST_LOAD_SECONDS}. Their output is kept for the failure message.
     */
    static final class KafkaLoad implements AutoCloseable {
        private final Process producer;
        private final Process consumer;
        private final List<String> producerOutput = Collections.synchronizedList(new ArrayList<>());
        private final List<String> consumerOutput = Collections.synchronizedList(new ArrayList<>());

        private KafkaLoad(Process producer, Process consumer) {
            this.producer = producer;
            this.consumer = consumer;
            pump(producer, producerOutput);
            pump(consumer, consumerOutput);
        }

        static KafkaLoad start(int port, Path dir) throws IOException {
            String bootstrap = "127.0.0.1:" + port;
            int records = RECORDS_PER_SECOND * LONGEST_LOAD_SECONDS;
            Process producer = tool(dir, "org.apache.kafka.tools.ProducerPerformance", "--topic", "load", "--num-records",
                    Integer.toString(records), "--record-size", "200", "--throughput", Integer.toString(RECORDS_PER_SECOND),
                    "--producer-props", "bootstrap.servers=" + bootstrap, "acks=1", "linger.ms=5");
            try {
                Process consumer = tool(dir, "org.apache.kafka.tools.ConsumerPerformance", "--bootstrap-server", bootstrap,
                        "--topic", "load", "--num-records", Integer.toString(records), "--timeout",
                        Long.toString(TimeUnit.SECONDS.toMillis(LONGEST_LOAD_SECONDS)), "--reporting-interval", "2000", "--show-detailed-stats");
                return new KafkaLoad(producer, consumer);
            } catch (IOException | RuntimeException e) {
                producer.destroyForcibly();
                throw e;
            }
        }

        /** A tool run by the JDK running the tests, beside the broker's root where it has one. */
        private static Process tool(Path dir, String mainClass, String... args) throws IOException {
            List<String> command = new ArrayList<>(List.of(Jdks.current().java().toString(), "-Xmx256m", "-XX:TieredStopAtLevel=1", "-cp",
                    KAFKA_LIBS.resolve("*").toString(), mainClass));
            command.addAll(List.of(args));
            return new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
        }

        private static void pump(Process process, List<String> lines) {
            Thread thread = new Thread(() -> {
                try {
                    new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8)).lines().forEach(lines::add);
                } catch (UncheckedIOException closed) {
                    // the tool was stopped
                }
            }, "kafka load output");
            thread.setDaemon(true);
            thread.start();
        }

        /** Waits until the producer reported records sent and the consumer records consumed. */
        void awaitFlowing(Duration timeout) throws InterruptedException {
            long deadline = System.nanoTime() + timeout.toNanos();
            while (!(produced() && consumed())) {
                assertTrue(System.nanoTime() < deadline && running(), "the load did not flow in " + timeout.toSeconds() + " s:\n" + this);
                Thread.sleep(200);
            }
        }

        private boolean produced() {
            synchronized (producerOutput) {
                return producerOutput.stream().anyMatch(l -> l.matches("[1-9]\\d* records sent, .*"));
            }
        }

        /** A detailed-stats line: time, then counts, the fifth of them the records consumed so far. */
        private boolean consumed() {
            synchronized (consumerOutput) {
                return consumerOutput.stream().map(l -> l.split(", ")).anyMatch(f -> f.length >= 6 && f[4].matches("[1-9]\\d*"));
            }
        }

        boolean running() {
            return producer.isAlive() && consumer.isAlive();
        }

        @Override
        public String toString() {
            return "ProducerPerformance (" + (producer.isAlive() ? "running" : "ended") + "):\n" + String.join("\n", tail(producerOutput))
                    + "\nConsumerPerformance (" + (consumer.isAlive() ? "running" : "ended") + "):\n" + String.join("\n", tail(consumerOutput));
        }

        private static List<String> tail(List<String> lines) {
            synchronized (lines) {
                return List.copyOf(lines.subList(Math.max(0, lines.size() - 8), lines.size()));
            }
        }

        @Override
        public void close() throws InterruptedException {
            for (Process process : List.of(producer, consumer)) {
                process.destroy();
                if (!process.waitFor(10, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                }
            }
        }
    }
}
