package dev.jvmticli.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.jvmticli.targets.LocksTarget;
import dev.jvmticli.targets.UnmountedVirtualThreadsTarget;
import dev.jvmticli.targets.VirtualThreadsTarget;
import dev.jvmticli.testing.AgentMode;
import dev.jvmticli.testing.CliRun;
import dev.jvmticli.testing.CliRun.Result;
import dev.jvmticli.testing.Jdks;
import dev.jvmticli.testing.Json;
import dev.jvmticli.testing.TargetJvm;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Virtual threads on the newest installed JDK 21+ (skipped, saying so, when there is none), in
 * live-attach and start-up mode; and what --virtual says on a JDK without virtual threads.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class VirtualThreadsIT {
    private static final Optional<Jdks.Jdk> JDK = Jdks.atLeast(21);
    private static final String NO_JDK = "no JDK 21 or later is installed: virtual threads cannot be tested here";

    private final Map<AgentMode, TargetJvm> targets = new HashMap<>();

    @BeforeAll
    void startTargets() {
        JDK.ifPresent(jdk -> {
            for (AgentMode mode : AgentMode.values()) {
                targets.put(mode, TargetJvm.start(jdk, VirtualThreadsTarget.class, mode.jvmOptions()));
            }
        });
    }

    @AfterAll
    void stopTargets() {
        targets.values().forEach(TargetJvm::close);
    }

    private String pid(AgentMode mode) {
        assumeTrue(JDK.isPresent(), NO_JDK);
        return Long.toString(targets.get(mode).pid());
    }

    private JsonNode json(AgentMode mode, String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.add(1, pid(mode));
        all.add("--json");
        Result result = CliRun.run(all.toArray(String[]::new));
        assertTrue(result.exit() == 0 || result.exit() == 10, result.toString());
        return Json.parse(result.out());
    }

    private static JsonNode named(JsonNode threads, String name) {
        for (JsonNode t : threads) {
            JsonNode thread = t.has("thread") ? t.path("thread") : t;
            if (thread.path("name").asText().equals(name)) {
                return t;
            }
        }
        throw new AssertionError("no thread " + name + " in " + threads);
    }

    private static List<JsonNode> matching(JsonNode threads, String regex) {
        List<JsonNode> found = new ArrayList<>();
        threads.forEach(t -> {
            if (Pattern.matches(regex, (t.has("thread") ? t.path("thread") : t).path("name").asText())) {
                found.add(t);
            }
        });
        return found;
    }

    @ParameterizedTest
    @EnumSource(AgentMode.class)
    void threadsVirtualListsEveryVirtualThreadWithItsStateAndCarrier(AgentMode mode) {
        JsonNode threads = json(mode, "threads", "--virtual").path("threads");
        int expected = VirtualThreadsTarget.SLEEPERS + VirtualThreadsTarget.PARKED + 5;
        assertEquals(expected, threads.size(), threads.toString());
        threads.forEach(t -> assertTrue(t.path("virtual").asBoolean(), t.toString()));
        assertEquals(VirtualThreadsTarget.NAMED_SLEEPERS, matching(threads, "vt-sleep-\\d+").size());
        assertEquals(VirtualThreadsTarget.SLEEPERS - VirtualThreadsTarget.NAMED_SLEEPERS, matching(threads, "").size());
        matching(threads, "vt-sleep-\\d+|").forEach(t -> assertEquals("TIMED_WAITING", t.path("state").asText(), t.toString()));
        List<JsonNode> parked = matching(threads, "vt-exec-\\d+");
        assertEquals(VirtualThreadsTarget.PARKED, parked.size(), "threads of an executor's container are found too");
        parked.forEach(t -> assertEquals(List.of("parked"), Json.texts(t.path("flags"))));
        assertEquals("WAITING", named(threads, "vt-rl-parked").path("state").asText());
        assertEquals("BLOCKED", named(threads, "vt-blocked").path("state").asText());
        assertEquals("BLOCKED", named(threads, "vt-dl").path("state").asText());

        JsonNode pinned = named(threads, "vt-pinned");
        assertTrue(pinned.path("pinned").asBoolean(), pinned.toString());
        long carrier = pinned.path("carrierId").asLong();
        JsonNode all = json(mode, "threads", "--all").path("threads");
        JsonNode carrierThread = null;
        for (JsonNode t : all) {
            if (t.path("id").asLong() == carrier) {
                carrierThread = t;
            }
        }
        assertTrue(carrierThread != null && !carrierThread.path("virtual").asBoolean(), all.toString());
        assertEquals(pinned.path("id").asLong(), carrierThread.path("carrying").asLong(), "the carrier shows what it carries");
        assertEquals(expected, all.size() - json(mode, "threads").path("threads").size());

        JsonNode summary = json(mode, "threads", "--virtual", "--summary").path("virtual");
        assertEquals(expected, summary.path("count").asInt());
        assertEquals(2, summary.path("byState").path("BLOCKED").asInt());
        assertEquals(VirtualThreadsTarget.PARKED + 1, summary.path("byState").path("WAITING").asInt());
        assertEquals(VirtualThreadsTarget.SLEEPERS + 2, summary.path("byState").path("TIMED_WAITING").asInt());
        assertEquals(1, summary.path("pinned").asInt());
        assertTrue(summary.path("mounted").asInt() >= 1, "vt-pinned keeps its carrier: " + summary);

        Result plain = CliRun.run("threads", pid(mode));
        assertEquals(0, plain.exit(), plain.toString());
        assertTrue(plain.out().endsWith("\n" + expected + " virtual threads not listed (" + summary.path("mounted").asInt()
                + " mounted): threads --virtual lists them, --all with the platform threads.\n"), plain.out());

        Result text = CliRun.run("threads", pid(mode), "--virtual", "--state", "BLOCKED");
        assertEquals(0, text.exit(), text.toString());
        assertTrue(Pattern.compile("(?m)^ *\\d+  BLOCKED  -       -        vt-blocked$").matcher(text.out()).find(), text.out());
        Result unnamed = CliRun.run("threads", pid(mode), "--virtual", "--sort", "name");
        assertTrue(Pattern.compile("(?m)^ *(\\d+)  TIMED_WAITING  parked +- +#\\1$").matcher(unnamed.out()).find(),
                "an unnamed virtual thread shows its id:\n" + unnamed.out());
    }

    @ParameterizedTest
    @EnumSource(AgentMode.class)
    void stacksVirtualGivesEveryStackInJstackFormatGroupedWhenMany(AgentMode mode) {
        Result grouped = CliRun.run("stacks", pid(mode), "--virtual");
        assertEquals(0, grouped.exit(), grouped.toString());
        assertTrue(grouped.out().contains("\n" + VirtualThreadsTarget.SLEEPERS + " threads: \"vt-sleep-0\" #"), grouped.out());
        assertTrue(grouped.out().contains(", and " + (VirtualThreadsTarget.SLEEPERS - 10) + " more\n"), grouped.out());
        Result fewShareOneStack = CliRun.run("stacks", pid(mode), "--virtual", "--thread", "vt-sleep-*");
        assertTrue(fewShareOneStack.out().contains("\n" + VirtualThreadsTarget.NAMED_SLEEPERS + " threads: \"vt-sleep-0\" #"),
                "more than 10 threads with one stack are grouped, however few in all:\n" + fewShareOneStack.out());
        Result tenShareOneStack = CliRun.run("stacks", pid(mode), "--virtual", "--thread", "vt-sleep-?");
        assertEquals(10, Pattern.compile("(?m)^\"vt-sleep-\\d\" #\\d+ virtual ").matcher(tenShareOneStack.out()).results().count(),
                "10 threads with one stack are each printed:\n" + tenShareOneStack.out());
        assertEquals(VirtualThreadsTarget.NAMED_SLEEPERS, Pattern.compile("(?m)^\"vt-sleep-\\d+\" #")
                .matcher(CliRun.run("stacks", pid(mode), "--virtual", "--thread", "vt-sleep-*", "--no-group").out()).results().count());

        Result text = CliRun.run("stacks", pid(mode), "--virtual", "--no-group");
        assertEquals(0, text.exit(), text.toString());
        String blocked = section(text.out(), "vt-blocked");
        assertTrue(Pattern.compile("\\A\"vt-blocked\" #\\d+ virtual prio=5 waiting for monitor entry\n"
                + "   java\\.lang\\.Thread\\.State: BLOCKED \\(on object monitor\\)\n"
                + "\tat dev\\.jvmticli\\.targets\\.VirtualThreadsTarget\\.lambda\\$main\\$\\d+\\(VirtualThreadsTarget\\.java:\\d+\\)\n"
                + "\t- waiting to lock <0x[0-9a-f]{16}> \\(a java\\.lang\\.Object\\)\n").matcher(blocked).find(), blocked);
        String parked = section(text.out(), "vt-rl-parked");
        assertTrue(parked.contains("\t- parking to wait for  <0x"), parked);
        assertTrue(parked.contains("(a java.util.concurrent.locks.ReentrantLock$NonfairSync)\n\tat "), parked);
        String holder = section(text.out(), "vt-mon-holder");
        assertTrue(Pattern.compile("\tat dev\\.jvmticli\\.targets\\.VirtualThreadsTarget\\.lambda\\$main\\$\\d+\\(VirtualThreadsTarget\\.java:\\d+\\)\n"
                + "\t- locked <0x[0-9a-f]{16}> \\(a java\\.lang\\.Object\\)\n").matcher(holder).find(), "locked at the frame that entered it:\n" + holder);
        String pinned = section(text.out(), "vt-pinned");
        assertTrue(pinned.startsWith("\"vt-pinned\" #"), pinned);
        assertTrue(pinned.contains(" virtual pinned prio=5 "), pinned);
        assertTrue(pinned.contains("   Mounted on carrier \"ForkJoinPool-"), pinned);
        assertTrue(pinned.contains("VirtualThreadsTarget$PinsInInitializer.<clinit>"), pinned);

        JsonNode sleeper = named(json(mode, "stacks", "--virtual", "--thread", "vt-sleep-3").path("threads"), "vt-sleep-3");
        assertTrue(sleeper.path("thread").path("virtual").asBoolean());
        List<String> methods = new ArrayList<>();
        sleeper.path("frames").forEach(f -> methods.add(f.path("class").asText() + "." + f.path("method").asText()));
        assertTrue(methods.contains(LocksTarget.class.getName() + ".sleepForever"), methods.toString());

        Result platform = CliRun.run("stacks", pid(mode));
        assertTrue(Pattern.compile("   Carrying virtual thread \"vt-pinned\" #\\d+\n").matcher(platform.out()).find(), platform.out());
        assertFalse(platform.out().contains("\"vt-sleep-0\""), "plain stacks shows platform threads only");
    }

    @ParameterizedTest
    @EnumSource(AgentMode.class)
    void monitorsNameTheOwnersAcrossPlatformAndVirtualThreads(AgentMode mode) {
        JsonNode threads = json(mode, "monitors").path("threads");
        long monHolder = named(threads, "p-mon-holder").path("thread").path("id").asLong();
        JsonNode blocked = named(threads, "vt-blocked").path("waitingFor");
        assertEquals("enter", blocked.path("kind").asText());
        assertEquals(monHolder, blocked.path("ownerId").asLong());
        JsonNode parked = named(threads, "vt-rl-parked").path("waitingFor");
        assertEquals("acquire", parked.path("kind").asText(), "a virtual thread parked acquiring a ReentrantLock contends for it");
        assertEquals(named(json(mode, "stacks", "--thread", "p-rl-owner").path("threads"), "p-rl-owner").path("thread").path("id").asLong(),
                parked.path("ownerId").asLong());
        assertTrue(matching(threads, "vt-mon-holder").isEmpty(),
                "a virtual thread that sleeps is not asked for lock facts (stacks --virtual shows what it holds): " + threads);

        Result text = CliRun.run("monitors", pid(mode), "--by-lock");
        assertTrue(Pattern.compile("  owner: \"p-mon-holder\" #\\d+\n  waiting to enter \\(1\\): \"vt-blocked\" #\\d+ \\(virtual\\)\n")
                .matcher(text.out()).find(), text.out());

        JsonNode without = json(mode, "monitors", "--no-virtual").path("threads");
        assertTrue(matching(without, "vt-.*").isEmpty(), without.toString());
    }

    @ParameterizedTest
    @EnumSource(AgentMode.class)
    void deadlocksFindTheCycleThroughAVirtualThread(AgentMode mode) {
        Result text = CliRun.run("deadlocks", pid(mode));
        assertEquals(10, text.exit(), text.toString());
        assertTrue(text.out().contains("Found one Java-level deadlock:"), text.out());
        assertTrue(Pattern.compile("\n\"vt-dl\":\n  waiting to lock monitor (<0x[0-9a-f]+>) \\(object \\1, a java\\.lang\\.Object\\),\n"
                + "  which is held by \"p-dl\"\n\n").matcher(text.out()).find(), text.out());
        assertTrue(Pattern.compile("\n\"p-dl\":\n  waiting to lock monitor (<0x[0-9a-f]+>) \\(object \\1, a java\\.lang\\.Object\\),\n"
                + "  which is held by \"vt-dl\"\n\n").matcher(text.out()).find(), text.out());
        assertTrue(text.out().endsWith("Found 1 deadlock.\n"), text.out());

        JsonNode document = json(mode, "deadlocks");
        assertEquals(1, document.path("count").asInt());
        Set<String> names = new TreeSet<>();
        document.path("deadlocks").get(0).forEach(t -> names.add(t.path("thread").path("name").asText()));
        assertEquals(Set.of("p-dl", "vt-dl"), names);

        Result platformOnly = CliRun.run("deadlocks", pid(mode), "--no-virtual");
        assertEquals(0, platformOnly.exit(), "without virtual threads the cycle is not closed: " + platformOnly);
    }

    Stream<Jdks.Jdk> jdksWithoutVirtualThreads() {
        return Jdks.stream().filter(jdk -> jdk.feature() < 21);
    }

    @Test
    void plainThreadsCountsVirtualThreadsWhenNoneIsMounted() {
        assumeTrue(JDK.isPresent(), NO_JDK);
        try (TargetJvm target = TargetJvm.start(JDK.get(), UnmountedVirtualThreadsTarget.class)) {
            String pid = Long.toString(target.pid());
            int expected = UnmountedVirtualThreadsTarget.IN_ROOT + UnmountedVirtualThreadsTarget.IN_EXECUTOR;
            Result plain = CliRun.run("threads", pid);
            assertEquals(0, plain.exit(), plain.toString());
            assertTrue(plain.out().endsWith("\n" + expected + " virtual threads not listed (0 mounted): threads --virtual lists them,"
                    + " --all with the platform threads.\n"), plain.out());
        }
    }

    @ParameterizedTest
    @MethodSource("jdksWithoutVirtualThreads")
    void virtualOnAJdkWithoutVirtualThreadsSaysSo(Jdks.Jdk jdk) {
        try (TargetJvm target = TargetJvm.start(jdk, LocksTarget.class)) {
            String pid = Long.toString(target.pid());
            for (String command : List.of("threads", "stacks")) {
                Result result = CliRun.run(command, pid, "--virtual");
                assertEquals(12, result.exit(), result.toString());
                assertEquals("jvmti-cli: JVM " + pid + ": no virtual threads in this JVM (they need JDK 21 or later)\n", result.err());
            }
            Result plain = CliRun.run("threads", pid);
            assertFalse(plain.out().contains("virtual threads not listed"), plain.out());
            Result all = CliRun.run("threads", pid, "--all");
            assertEquals(0, all.exit(), all.toString());
            assertTrue(all.out().endsWith("\nThe target JVM has no virtual threads (they need JDK 21 or later).\n"), all.out());
            assertEquals(10, CliRun.run("deadlocks", pid).exit(), "platform deadlocks are still found");
        }
    }

    private static String section(String dump, String name) {
        int start = dump.indexOf("\n\"" + name + "\" #");
        assertTrue(start >= 0, "no thread " + name + " in\n" + dump);
        int end = dump.indexOf("\n\n\"", start + 1);
        return dump.substring(start + 1, end < 0 ? dump.length() : end + 1);
    }
}
