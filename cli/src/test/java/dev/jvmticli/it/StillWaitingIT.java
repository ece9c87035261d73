package dev.jvmticli.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jvmticli.client.AgentClient;
import dev.jvmticli.client.ContentionReport;
import dev.jvmticli.client.ContentionSession;
import dev.jvmticli.client.ParksReport;
import dev.jvmticli.render.StillWaitingView;
import dev.jvmticli.targets.StuckWaitsTarget;
import dev.jvmticli.testing.AgentProbe;
import com.fasterxml.jackson.databind.JsonNode;
import dev.jvmticli.testing.CliRun;
import dev.jvmticli.testing.CliRun.Result;
import dev.jvmticli.testing.JcmdThreadDump;
import dev.jvmticli.testing.Jdks;
import dev.jvmticli.testing.Json;
import dev.jvmticli.testing.Jstack;
import dev.jvmticli.testing.TargetJvm;
import dev.jvmticli.testing.TargetsPerJdk;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * `contention`'s waits not over at the window's end, on {@link StuckWaitsTarget}, whose waits never
 * end: the monitor enters and parks begun in the window and still waiting at its end (how many, on
 * what, how long so far against the target's own record of when each began), and the threads
 * blocked on a monitor since before the window; checked against jstack taken in the window (nothing
 * moves in the target by then).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class StillWaitingIT {
    @TempDir
    Path tmp;

    private static final String BEFORE = "dev.jvmticli.targets.StuckWaitsTarget$Before";
    private static final String DURING = "dev.jvmticli.targets.StuckWaitsTarget$During";
    private static final String SYNC = "java.util.concurrent.locks.ReentrantLock$NonfairSync";
    /** How far the agent's start of a wait may be from the target's record of it, taken just before. */
    private static final long START_SLACK_NANOS = 50_000_000L;

    @RegisterExtension
    static final TargetsPerJdk targets = TargetsPerJdk.of(StuckWaitsTarget.class);

    Stream<Jdks.Jdk> jdks() {
        return Jdks.stream();
    }

    @ParameterizedTest
    @MethodSource("jdks")
    void waitsStillGoingOnAtTheWindowsEndAndThoseSinceBeforeIt(Jdks.Jdk jdk) throws Exception {
        TargetJvm target = targets.get(jdk);
        CliRun.run("threads", Long.toString(target.pid())); // the agent is resident
        boolean virtual = jdk.feature() >= 21;
        boolean virtualMonitors = jdk.feature() >= 25; // which monitor a virtual thread is blocked on: ThreadSnapshot, JDK 25+
        ContentionSession.Result recorded;
        String jstack;
        JsonNode jcmd = null;
        String[] hashes;
        try (AgentClient client = AgentProbe.open(target.pid())) {
            ContentionSession session = ContentionSession.start(client, true);
            assertTrue(session.recordsParks(), jdk.toString());
            assertTrue(target.ask("block").startsWith("blocked "), "the target's threads wait");
            jstack = Jstack.locked(jdk, target.pid());
            if (virtual) {
                jcmd = Json.parse(JcmdThreadDump.take(jdk, target.pid(), tmp));
            }
            hashes = target.ask("hashes").split(" ");
            recorded = session.stop();
        }
        Map<String, Long> started = new HashMap<>();
        Arrays.stream(target.ask("started").split(",")).map(s -> s.split("=")).forEach(p -> started.put(p[0], Long.parseLong(p[1])));

        ContentionReport monitors = recorded.monitors();
        Set<String> expectedBlocked = names("during-blocked-", StuckWaitsTarget.DURING_BLOCKED);
        if (virtual) {
            expectedBlocked.add("v-blocked");
        }
        assertEquals(expectedBlocked, monitors.stillWaiting().stream().map(ContentionReport.StillWaiting::thread)
                .collect(Collectors.toCollection(TreeSet::new)), monitors.toString());
        for (ContentionReport.StillWaiting w : monitors.stillWaiting()) {
            ContentionReport.Monitor m = monitors.monitors().stream().filter(x -> x.id() == w.monitor()).findFirst().orElseThrow();
            assertEquals("L" + DURING.replace('.', '/') + ";", m.classSignature());
            assertEquals(hashes[1], Long.toHexString(m.identityHash()));
            assertEquals(w.thread().startsWith("v-"), w.virtual(), w.toString());
            assertClose(monitors.untilNanos() - started.get(w.thread()), w.waitedNanos(), w.toString());
        }
        StillWaitingView.Row during = StillWaitingView.monitors(monitors).get(0);
        assertEquals(expectedBlocked.size(), during.waits(), during.toString());
        assertTrue(during.site().startsWith("dev.jvmticli.targets.StuckWaitsTarget.blockOn:"), during.toString());

        assertNull(monitors.blockedBeforeNotKnown(), monitors.toString());
        Set<String> expectedBefore = new TreeSet<>(Set.of("before-blocked-1", "before-blocked-2"));
        if (virtual && virtualMonitors) {
            expectedBefore.add("v-before-blocked");
        }
        assertEquals(virtual && !virtualMonitors, monitors.virtualBlockedBeforeNotKnown() != null, monitors.toString());
        assertEquals(expectedBefore, monitors.blockedBefore().stream().map(ContentionReport.BlockedBefore::thread)
                .collect(Collectors.toCollection(TreeSet::new)), "only the threads blocked since before the window: " + monitors.blockedBefore());
        for (ContentionReport.BlockedBefore b : monitors.blockedBefore()) {
            assertEquals(BEFORE, b.className());
            assertEquals(hashes[0], Long.toHexString(b.identityHash()));
            assertEquals("before-owner", b.owner(), b.toString());
            assertEquals(b.thread().startsWith("v-"), b.virtual(), b.toString());
        }

        ParksReport parks = recorded.parks();
        Set<String> expectedParked = names("lock-waiter-", StuckWaitsTarget.LOCK_WAITERS);
        if (virtual) {
            expectedParked.add("v-lock-waiter");
        }
        assertEquals(expectedParked, parks.stillWaiting().stream().map(ParksReport.StillWaiting::thread)
                .collect(Collectors.toCollection(TreeSet::new)), parks.toString());
        for (ParksReport.StillWaiting w : parks.stillWaiting()) {
            ParksReport.Lock lock = parks.locks().stream().filter(x -> x.id() == w.lock()).findFirst().orElseThrow();
            assertEquals("L" + SYNC.replace('.', '/') + ";", lock.classSignature());
            assertEquals(hashes[2], Long.toHexString(lock.identityHash()));
            assertEquals("lock-owner", w.owner().thread(), w.toString());
            assertClose(parks.untilNanos() - started.get(w.thread()), w.waitedNanos(), w.toString());
        }
        int lockId = parks.stillWaiting().get(0).lock();
        assertTrue(parks.sites().stream().noneMatch(s -> s.lock() == lockId), "the parks still waiting are not among those that ended");
        List<StillWaitingView.Row> parkedBefore = StillWaitingView.parkedBefore(parks).stream().filter(r -> !r.idle()).toList();
        assertEquals(1, parkedBefore.size(), "only the lock's first waiters have been parked since before the window: " + parkedBefore);
        Set<String> expectedParkedBefore = new TreeSet<>(Set.of("before-lock-waiter"));
        if (virtual) {
            expectedParkedBefore.add("v-before-lock-waiter");
        }
        assertEquals(expectedParkedBefore, parkedBefore.get(0).threads().stream().map(StillWaitingView.Waiter::thread)
                .collect(Collectors.toCollection(TreeSet::new)));
        parkedBefore.get(0).threads().forEach(w -> assertEquals(w.thread().startsWith("v-"), w.virtual(), w.toString()));
        assertNull(parks.parkedBeforeIncomplete(), parks.toString());
        assertEquals(SYNC + "@" + hashes[2], parkedBefore.get(0).lock());
        assertEquals("lock-owner", parkedBefore.get(0).owner());
        StillWaitingView.Row parked = StillWaitingView.parks(parks).get(0);
        assertEquals(expectedParked.size(), parked.waits(), parked.toString());
        assertEquals("lock-owner", parked.owner());
        assertTrue(parked.site().startsWith("java.util.concurrent.locks.ReentrantLock.lock:")
                && parked.site().contains(" <- dev.jvmticli.targets.StuckWaitsTarget.waitForLock:"), parked.toString());

        // jstack, in the window: the same platform threads blocked on the same monitors and parked on the same lock, owned by the same threads
        Map<String, String> blocks = threadBlocks(jstack);
        String beforeAddress = lockedAddress(blocks.get("before-owner"), BEFORE);
        String duringAddress = lockedAddress(blocks.get("during-owner"), DURING);
        Set<String> blockedInJstack = blocks.entrySet().stream().filter(e -> e.getValue().contains("java.lang.Thread.State: BLOCKED"))
                .map(Map.Entry::getKey).collect(Collectors.toSet());
        Set<String> platformBlocked = new TreeSet<>(names("during-blocked-", StuckWaitsTarget.DURING_BLOCKED));
        platformBlocked.addAll(List.of("before-blocked-1", "before-blocked-2"));
        assertEquals(platformBlocked, new TreeSet<>(blockedInJstack), jstack);
        for (String name : platformBlocked) {
            String address = name.startsWith("before") ? beforeAddress : duringAddress;
            assertTrue(blocks.get(name).contains("- waiting to lock " + address), name + " in jstack:\n" + blocks.get(name));
        }
        String syncAddress = ownedSynchronizer(blocks.get("lock-owner"), SYNC);
        Set<String> lockWaiters = names("lock-waiter-", StuckWaitsTarget.LOCK_WAITERS);
        lockWaiters.add("before-lock-waiter");
        for (String name : lockWaiters) {
            assertTrue(blocks.get(name).matches("(?s).*- parking to wait for +" + syncAddress + ".*"), name + " in jstack:\n" + blocks.get(name));
        }

        if (virtual) {
            assertVirtualWaitsInJcmd(jcmd, hashes, virtualMonitors);
        }

        // the text: a window begun after every wait shows them all blocked since before it
        Result text = CliRun.run("contention", Long.toString(target.pid()), "--duration", "500ms");
        assertEquals(0, text.exit(), text.toString());
        String before = text.out().substring(text.out().indexOf("Blocked since before the window"));
        String virtualBlockedBefore = virtualMonitors ? ", v-before-blocked #\\d+ virtual" : "";
        assertTrue(before.lines().anyMatch(l -> l.matches(" *" + (virtualMonitors ? 3 : 2) + " +" + Pattern.quote(BEFORE + "@" + hashes[0])
                + " +before-owner #\\d+ +before-blocked-1, before-blocked-2" + virtualBlockedBefore)), text.out());
        String virtualBlocked = virtualMonitors ? ", v-blocked #\\d+ virtual" : "";
        assertTrue(before.lines().anyMatch(l -> l.matches(" *" + (virtualMonitors ? 4 : 3) + " +" + Pattern.quote(DURING + "@" + hashes[1])
                + " +during-owner #\\d+ +during-blocked-1, during-blocked-2, during-blocked-3" + virtualBlocked)), text.out());
        String parkedText = text.out().substring(text.out().indexOf("Parked since before the window"));
        String virtualParked = virtual ? ", v-before-lock-waiter #\\d+ virtual, v-lock-waiter #\\d+ virtual" : "";
        assertTrue(parkedText.lines().anyMatch(l -> l.matches(" *" + (virtual ? 5 : 3) + " +" + Pattern.quote(SYNC + "@" + hashes[2])
                + " +lock-owner +before-lock-waiter, lock-waiter-1, lock-waiter-2" + virtualParked + " +java\\.util\\.concurrent\\.locks\\.ReentrantLock\\.lock:\\d+ <- "
                + Pattern.quote("dev.jvmticli.targets.StuckWaitsTarget.waitForLock:") + "\\d+")), text.out());
    }

    /**
     * The virtual threads waiting since before the window as the JDK's own dump saw them in it: blocked on the
     * Before monitor that before-owner holds (JDK 25+: JDK 21's dump states no lock facts), parked on the lock's sync
     * (whose owner jcmd does not state: jstack's owned synchronizers of lock-owner, above, do).
     */
    private static void assertVirtualWaitsInJcmd(JsonNode jcmd, String[] hashes, boolean virtualMonitors) {
        Map<String, JsonNode> threads = new HashMap<>();
        jcmd.path("threadDump").path("threadContainers").forEach(c -> c.path("threads").forEach(t -> threads.put(t.path("name").asText(), t)));
        JsonNode blocked = threads.get("v-before-blocked");
        JsonNode parked = threads.get("v-before-lock-waiter");
        assertTrue(blocked != null && parked != null, jcmd.toString());
        if (!virtualMonitors) {
            return;
        }
        assertTrue(blocked.path("virtual").asBoolean() && parked.path("virtual").asBoolean(), jcmd.toString());
        assertEquals(BEFORE + "@" + hashes[0], blocked.path("blockedOn").asText(), blocked.toString());
        JsonNode owner = threads.get("before-owner");
        assertTrue(owner.path("monitorsOwned").toString().contains(BEFORE + "@" + hashes[0]), owner.toString());
        assertEquals(SYNC + "@" + hashes[2], parked.path("parkBlocker").path("object").asText(), parked.toString());
    }

    private static void assertClose(long expected, long actual, String what) {
        assertTrue(actual > 0 && Math.abs(expected - actual) < START_SLACK_NANOS,
                "waited " + actual + " ns, the target's record says " + expected + ": " + what);
    }

    private static Set<String> names(String prefix, int count) {
        Set<String> names = new TreeSet<>();
        for (int i = 1; i <= count; i++) {
            names.add(prefix + i);
        }
        return names;
    }

    /** Each thread's block of a jstack dump, by name. */
    private static Map<String, String> threadBlocks(String jstack) {
        Map<String, String> blocks = new HashMap<>();
        for (String block : jstack.split("\n\\s*\n(?=\")")) {
            Matcher name = Pattern.compile("^\"([^\"]*)\"").matcher(block);
            if (name.find()) {
                blocks.put(name.group(1), block);
            }
        }
        return blocks;
    }

    private static String lockedAddress(String block, String className) {
        Matcher m = Pattern.compile("- locked (<0x\\p{XDigit}+>) \\(a " + Pattern.quote(className) + "\\)").matcher(block);
        assertTrue(m.find(), block);
        return m.group(1);
    }

    private static String ownedSynchronizer(String block, String className) {
        Matcher m = Pattern.compile("- (<0x\\p{XDigit}+>) \\(a " + Pattern.quote(className) + "\\)").matcher(block);
        assertTrue(m.find(), block);
        return m.group(1);
    }
}
