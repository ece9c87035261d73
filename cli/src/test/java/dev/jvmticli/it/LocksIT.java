package dev.jvmticli.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.jvmticli.targets.LiveContentionTarget;
import dev.jvmticli.targets.LocksTarget;
import dev.jvmticli.targets.MonitorCrowdTarget;
import dev.jvmticli.testing.AgentMode;
import dev.jvmticli.testing.CliRun;
import dev.jvmticli.testing.CliRun.Result;
import dev.jvmticli.testing.Jdks;
import dev.jvmticli.testing.Json;
import dev.jvmticli.testing.TargetJvm;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * stacks, monitors and deadlocks on LocksTarget, on every installed JDK, in both live-attach and
 * start-up mode; the two modes must agree.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LocksIT {
    record Case(Jdks.Jdk jdk, AgentMode mode) {
        @Override
        public String toString() {
            return jdk + " " + mode;
        }
    }

    private final Map<String, TargetJvm> targets = new LinkedHashMap<>();

    @BeforeAll
    void startTargets() {
        cases().forEach(c -> targets.put(c.toString(), TargetJvm.start(c.jdk(), LocksTarget.class, c.mode().jvmOptions())));
    }

    @AfterAll
    void stopTargets() {
        targets.values().forEach(TargetJvm::close);
    }

    Stream<Case> cases() {
        return Jdks.stream().flatMap(jdk -> Stream.of(new Case(jdk, AgentMode.LIVE_ATTACH), new Case(jdk, AgentMode.STARTUP)));
    }

    Stream<Jdks.Jdk> jdks() {
        return Jdks.stream();
    }

    private String pid(Case c) {
        return Long.toString(targets.get(c.toString()).pid());
    }

    private JsonNode json(Case c, String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.add(1, pid(c));
        all.add("--json");
        Result result = CliRun.run(all.toArray(String[]::new));
        assertTrue(result.exit() == 0 || result.exit() == 10, result.toString());
        return Json.parse(result.out());
    }

    private static JsonNode thread(JsonNode threads, String name) {
        for (JsonNode t : threads) {
            if (t.path("thread").path("name").asText().equals(name)) {
                return t;
            }
        }
        throw new AssertionError("no thread " + name);
    }

    private static int depthOf(JsonNode stack, String method) {
        JsonNode frames = stack.path("frames");
        for (int i = 0; i < frames.size(); i++) {
            if (frames.get(i).path("method").asText().equals(method)) {
                return i;
            }
        }
        throw new AssertionError("no frame " + method + " in " + frames);
    }

    @ParameterizedTest
    @MethodSource("cases")
    void deadlocksFindsTheMonitorTheReentrantLockAndTheMixedRingCycles(Case c) {
        Result text = CliRun.run("deadlocks", pid(c));
        assertEquals(10, text.exit(), text.toString());
        assertEquals(3, text.out().split("Found one Java-level deadlock:", -1).length - 1, text.out());
        assertTrue(text.out().endsWith("Found 3 deadlocks.\n"), text.out());
        assertTrue(text.out().contains("waiting for ownable synchronizer "), text.out());
        assertTrue(text.out().contains("Java stack information for the threads listed above:"), text.out());

        JsonNode document = json(c, "deadlocks");
        assertEquals(3, document.path("count").asInt());
        Set<Set<String>> cycles = new HashSet<>();
        Set<String> ringKinds = new TreeSet<>();
        for (JsonNode cycle : document.path("deadlocks")) {
            Set<String> names = new TreeSet<>();
            for (JsonNode t : cycle) {
                names.add(t.path("thread").path("name").asText());
                if (t.path("thread").path("name").asText().startsWith("ring-")) {
                    ringKinds.add(t.path("waitingFor").path("kind").asText());
                }
                assertTrue(t.path("frames").size() > 0, "stacks of the deadlocked threads are included");
            }
            cycles.add(names);
        }
        assertEquals(Set.of(Set.of("mon-dl-a", "mon-dl-b"), Set.of("rl-dl-a", "rl-dl-b"), Set.of("ring-1", "ring-2", "ring-3")), cycles);
        assertEquals(Set.of("enter", "acquire"), ringKinds);
    }

    /**
     * In start-up mode GetObjectMonitorUsage (a VM operation: a safepoint each, which -Xlog:safepoint
     * names) is asked about each BLOCKED thread's monitor: one request, retries included, makes at
     * most 256. Measured on this target: exactly 256; 257-258 when each retry round had its own 256.
     */
    @ParameterizedTest
    @MethodSource("jdks")
    void oneRequestMakesAtMost256MonitorUsageCallsAcrossItsRetries(Jdks.Jdk jdk) {
        List<String> options = new ArrayList<>(AgentMode.STARTUP.jvmOptions());
        options.add("-Xlog:safepoint:stderr");
        try (TargetJvm crowd = TargetJvm.start(jdk, MonitorCrowdTarget.class, options)) {
            long before = usageSafepoints(crowd);
            // without -l, which takes everything from one thread dump instead
            Result result = CliRun.run("stacks", Long.toString(crowd.pid()));
            assertEquals(0, result.exit(), result.toString());
            crowd.ask("threads"); /* what the target logged during the request has been read */
            long made = usageSafepoints(crowd) - before;
            assertTrue(made > 0 && made <= 256, made + " GetObjectMonitorUsage safepoints");
        }
    }

    private static long usageSafepoints(TargetJvm target) {
        return target.output().stream().filter(line -> line.text().contains("Safepoint \"GetObjectMonitorUsage\"")).count();
    }

    @ParameterizedTest
    @MethodSource("jdks")
    void noFalseDeadlockUnderHeavyLiveContention(Jdks.Jdk jdk) {
        try (TargetJvm busy = TargetJvm.start(jdk, LiveContentionTarget.class)) {
            for (int i = 0; i < 5; i++) {
                Result result = CliRun.run("deadlocks", Long.toString(busy.pid()));
                assertEquals(0, result.exit(), result.toString());
                assertEquals("No deadlocks found.\n", result.out());
            }
        }
    }

    @ParameterizedTest
    @MethodSource("cases")
    void monitorsReportOwnersWaitersAndParkedThreads(Case c) {
        JsonNode threads = json(c, "monitors").path("threads");
        JsonNode holder = thread(threads, "holder");
        JsonNode held = holder.path("locked").get(0);
        assertEquals("java.lang.Object", held.path("class").asText());
        assertTrue(holder.path("frames").get(held.path("depth").asInt()).path("method").asText().startsWith("lambda$contention$"));
        for (int i = 1; i <= 3; i++) {
            JsonNode wait = thread(threads, "contender-" + i).path("waitingFor");
            assertEquals("enter", wait.path("kind").asText());
            assertEquals(holder.path("thread").path("id").asLong(), wait.path("ownerId").asLong());
            assertEquals(held.path("hash").asLong(), wait.path("hash").asLong());
        }
        JsonNode alone = thread(json(c, "stacks", "--thread", "contender-1").path("threads"), "contender-1");
        assertEquals(holder.path("thread").path("id").asLong(), alone.path("waitingFor").path("ownerId").asLong(),
                "the owner is named when it is not among the threads asked about");
        JsonNode timed = thread(threads, "waiter-timed");
        assertEquals("TIMED_WAITING", timed.path("thread").path("state").asText());
        assertEquals("notify", timed.path("waitingFor").path("kind").asText());
        JsonNode untimed = thread(threads, "waiter-untimed");
        assertEquals("WAITING", untimed.path("thread").path("state").asText());
        assertEquals("notify", untimed.path("waitingFor").path("kind").asText());
        assertEquals(-1, untimed.path("waitingFor").path("ownerId").asLong());

        JsonNode parked = thread(threads, "rl-parked").path("waitingFor");
        assertEquals("acquire", parked.path("kind").asText());
        assertEquals("java.util.concurrent.locks.ReentrantLock$NonfairSync", parked.path("class").asText());
        JsonNode owner = thread(json(c, "stacks", "--thread", "rl-owner").path("threads"), "rl-owner");
        assertEquals(owner.path("thread").path("id").asLong(), parked.path("ownerId").asLong());
        String source = c.mode() == AgentMode.STARTUP ? "jvmti" : c.jdk().feature() >= 25 ? "snapshot" : "management";
        assertEquals(source, json(c, "monitors").path("lockSource").asText());
    }

    @ParameterizedTest
    @MethodSource("cases")
    void nestedAndRecursiveMonitorsAreReportedAtTheFramesThatEnteredThem(Case c) {
        JsonNode nester = thread(json(c, "monitors").path("threads"), "nester");
        Map<Integer, Long> hashByDepth = new TreeMap<>();
        for (JsonNode monitor : nester.path("locked")) {
            hashByDepth.put(monitor.path("depth").asInt(), monitor.path("hash").asLong());
        }
        int recursive = depthOf(nester, "nestRecursive");
        int middle = depthOf(nester, "nestMiddle");
        int outer = depthOf(nester, "nestOuter");
        assertEquals(Set.of(recursive, middle, outer), hashByDepth.keySet(), nester.toString());
        assertEquals(hashByDepth.get(outer), hashByDepth.get(recursive), "the same monitor entered twice");
        assertNotEquals(hashByDepth.get(outer), hashByDepth.get(middle));

        Result text = CliRun.run("monitors", pid(c));
        assertTrue(text.out().contains("2 times (recursive), entered at:"), text.out());
    }

    @ParameterizedTest
    @MethodSource("cases")
    void aThreadRunningNativeCodeOwnsTheMonitorItsFramesEntered(Case c) {
        JsonNode reader = thread(json(c, "monitors").path("threads"), "native-nester");
        assertEquals("RUNNABLE", reader.path("thread").path("state").asText(), reader.toString());
        List<Integer> depths = reader.path("locked").findValues("depth").stream().map(JsonNode::asInt).toList();
        assertEquals(List.of(depthOf(reader, "readUnderLock")), depths, reader.toString());
    }

    @ParameterizedTest
    @MethodSource("cases")
    void byLockPutsTheMostContendedMonitorFirst(Case c) {
        JsonNode first = json(c, "monitors", "--by-lock").path("locks").get(0);
        assertEquals("holder", first.path("owner").path("name").asText());
        assertEquals(List.of("contender-1", "contender-2", "contender-3"), sorted(first.path("entering").findValuesAsText("name")));
        assertEquals(0, first.path("notifyWaiters").size());

        Result text = CliRun.run("monitors", pid(c), "--by-lock");
        assertTrue(text.out().startsWith("<0x"), text.out());
        assertTrue(text.out().contains("  owner: \"holder\" #"), text.out());
        assertTrue(text.out().contains("  waiting to enter (3): \"contender-"), text.out());
    }

    @ParameterizedTest
    @MethodSource("cases")
    void threadsAwaitingAConditionWaitToBeSignalledAndDoNotContend(Case c) {
        JsonNode threads = json(c, "monitors").path("threads");
        JsonNode wait = thread(threads, "idle-worker-1").path("waitingFor");
        assertEquals("signal", wait.path("kind").asText(), wait.toString());
        assertEquals("java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject", wait.path("class").asText());
        assertEquals(-1, wait.path("ownerId").asLong());

        JsonNode condition = null;
        for (JsonNode lock : json(c, "monitors", "--by-lock").path("locks")) {
            if (lock.path("lock").path("className").asText().endsWith("$ConditionObject")) {
                condition = lock;
            }
        }
        assertTrue(condition != null, "the idle pool's condition is in the table");
        assertEquals(0, condition.path("entering").size(), condition.toString());
        assertEquals(LocksTarget.IDLE_WORKERS, condition.path("notifyWaiters").size(), condition.toString());

        Result text = CliRun.run("monitors", pid(c), "--by-lock");
        assertTrue(text.out().contains("  waiting to enter (0)\n  waiting to be notified or signalled (" + LocksTarget.IDLE_WORKERS
                + "): \"idle-worker-"), text.out());
        Result byThread = CliRun.run("monitors", pid(c));
        assertTrue(byThread.out().contains("  waiting in Condition.await on <0x"), byThread.out());
        assertTrue(section(CliRun.run("stacks", pid(c), "--thread", "idle-worker-1").out(), "idle-worker-1")
                .contains("\t- parking to wait for  <0x"), "jstack's line for a condition waiter");
    }

    @ParameterizedTest
    @MethodSource("cases")
    void stacksPrintsJstackCompatibleText(Case c) {
        Result result = CliRun.run("stacks", pid(c), "-l");
        assertEquals(0, result.exit(), result.toString());
        String dump = result.out();
        assertTrue(Pattern.compile("\\A\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d\nFull thread dump .+:\n\n").matcher(dump).find(), dump);
        String contender = section(dump, "contender-1");
        assertTrue(Pattern.compile("\\A\"contender-1\" #\\d+ (\\[\\d+\\] )?daemon prio=5 os_prio=-?\\d+ cpu=\\d+\\.\\d\\dms elapsed=\\d+\\.\\d\\ds "
                + "tid=0x[0-9a-f]{16} nid=(0x[0-9a-f]+|\\d+) waiting for monitor entry\n"
                + "   java\\.lang\\.Thread\\.State: BLOCKED \\(on object monitor\\)\n"
                + "\tat dev\\.jvmticli\\.targets\\.LocksTarget\\.lambda\\$contention\\$\\d+\\(LocksTarget\\.java:\\d+\\)\n"
                + "\t- waiting to lock <0x[0-9a-f]{16}> \\(a java\\.lang\\.Object\\)\n").matcher(contender).find(), contender);
        String address = contender.replaceAll("(?s).*waiting to lock (<0x[0-9a-f]+>).*", "$1");
        String holder = section(dump, "holder");
        assertTrue(holder.contains("\t- locked " + address + " (a java.lang.Object)\n"), "same object, same address:\n" + holder);
        assertTrue(holder.contains("   java.lang.Thread.State: TIMED_WAITING (sleeping)\n"), holder);

        String owner = section(dump, "rl-owner");
        assertTrue(owner.contains("   Locked ownable synchronizers:\n\t- <0x"), owner);
        assertTrue(owner.contains("(a java.util.concurrent.locks.ReentrantLock$NonfairSync)"), owner);
        assertTrue(section(dump, "rl-parked").contains("\t- parking to wait for  <0x"), section(dump, "rl-parked"));
        assertTrue(section(dump, "waiter-untimed").contains("   java.lang.Thread.State: WAITING (on object monitor)\n"));
        assertTrue(section(dump, "waiter-untimed").contains("\t- waiting on <0x"));
        assertTrue(section(dump, "mon-dl-a").contains("   Locked ownable synchronizers:\n\t- None\n"));
    }

    /** Each thread's ownable synchronizers (class names) in a jstack -l shaped dump; "None" counted as none. */
    private static Map<String, List<String>> ownableSynchronizers(String dump) {
        Map<String, List<String>> owned = new TreeMap<>();
        String thread = null;
        boolean inList = false;
        for (String line : dump.split("\n")) {
            if (line.startsWith("\"")) {
                thread = line.substring(1, line.indexOf('"', 1));
                inList = false;
            } else if (line.equals("   Locked ownable synchronizers:")) {
                inList = true;
                owned.put(thread, new ArrayList<>());
            } else if (inList && line.startsWith("\t- ") && !line.equals("\t- None")) {
                owned.get(thread).add(line.replaceAll(".*\\(a (.+)\\)$", "$1"));
            } else if (line.isEmpty()) {
                inList = false;
            }
        }
        return owned;
    }

    @ParameterizedTest
    @MethodSource("cases")
    void stacksListsEveryOwnedSynchronizerAsJstackDoes(Case c) throws Exception {
        Result ours = CliRun.run("stacks", pid(c), "-l");
        assertEquals(0, ours.exit(), ours.toString());
        assertTrue(section(ours.out(), "rl-lone-owner").contains("   Locked ownable synchronizers:\n"
                + "\t- <0x"), "a ReentrantLock nobody waits for:\n" + section(ours.out(), "rl-lone-owner"));
        Process jstack = new ProcessBuilder(c.jdk().home().resolve("bin/jstack").toString(), "-l", pid(c)).redirectErrorStream(true).start();
        String theirs = new String(jstack.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertEquals(0, jstack.waitFor(), theirs);
        Map<String, List<String>> expected = ownableSynchronizers(theirs);
        Map<String, List<String>> actual = ownableSynchronizers(ours.out());
        actual.keySet().retainAll(expected.keySet());
        expected.keySet().retainAll(actual.keySet());
        assertTrue(expected.size() > 20, "threads in both: " + expected.keySet());
        assertEquals(expected, actual);
        assertTrue(json(c, "stacks", "-l").path("ownableSynchronizersComplete").asBoolean());
        assertTrue(!json(c, "stacks").path("ownableSynchronizersComplete").asBoolean(), "without -l only those threads are parked on");
    }

    private static String section(String dump, String name) {
        int start = dump.indexOf("\n\"" + name + "\" #");
        assertTrue(start >= 0, "no thread " + name + " in\n" + dump);
        int end = dump.indexOf("\n\n\"", start + 1);
        return dump.substring(start + 1, end < 0 ? dump.length() : end + 1);
    }

    @ParameterizedTest
    @MethodSource("cases")
    void deepStacksDepthLimitsThreadSelectionAndGrouping(Case c) {
        JsonNode deep = json(c, "stacks", "--thread", "deep").path("threads");
        assertEquals(1, deep.size());
        assertEquals(LocksTarget.DEEP_FRAMES, deep.get(0).path("frames").findValuesAsText("method").stream().filter("recurse"::equals).count());

        JsonNode cut = json(c, "stacks", "--thread", "deep", "--max-depth", "5").path("threads").get(0);
        assertEquals(5, cut.path("frames").size());
        assertTrue(cut.path("truncated").asBoolean());

        JsonNode groups = json(c, "stacks", "--group", "--thread", "contender-*").path("groups");
        assertEquals(1, groups.size(), groups.toString());
        assertEquals(3, groups.get(0).path("count").asInt());

        Result missing = CliRun.run("stacks", pid(c), "--thread", "no-such-thread");
        assertEquals(1, missing.exit());
        assertEquals("jvmti-cli: no live thread matches 'no-such-thread'\n", missing.err());
    }

    @ParameterizedTest
    @MethodSource("jdks")
    void liveAttachAndStartUpModeGiveTheSameAnswers(Jdks.Jdk jdk) {
        Map<String, String> live = lockFacts(json(new Case(jdk, AgentMode.LIVE_ATTACH), "stacks").path("threads"));
        Map<String, String> startup = lockFacts(json(new Case(jdk, AgentMode.STARTUP), "stacks").path("threads"));
        assertEquals(live, startup);
        assertTrue(live.keySet().containsAll(List.of("holder", "contender-1", "nester", "native-nester", "ring-1", "rl-parked", "waiter-timed")), live.toString());
    }

    /** Thread name to what it owns (class@frame method) and waits for (kind, class, owner name). */
    private static Map<String, String> lockFacts(JsonNode threads) {
        Map<Long, String> names = new TreeMap<>();
        threads.forEach(t -> names.put(t.path("thread").path("id").asLong(), t.path("thread").path("name").asText()));
        Map<String, String> facts = new TreeMap<>();
        for (JsonNode t : threads) {
            String name = t.path("thread").path("name").asText();
            if (!Pattern.matches("holder|contender-\\d|nester|native-nester|ring-\\d|rl-.*|mon-dl-.|waiter-.*", name)) {
                continue;
            }
            List<String> owned = new ArrayList<>();
            for (JsonNode m : t.path("locked")) {
                owned.add(m.path("class").asText() + "@" + t.path("frames").get(m.path("depth").asInt()).path("method").asText());
            }
            JsonNode wait = t.path("waitingFor");
            String waits = wait.isMissingNode() ? "-" : wait.path("kind").asText() + " " + wait.path("class").asText()
                    + " owned by " + names.getOrDefault(wait.path("ownerId").asLong(), "none");
            facts.put(name, owned + " / " + waits);
        }
        return facts;
    }

    private static List<String> sorted(List<String> values) {
        return values.stream().sorted().toList();
    }
}
