package dev.jvmticli.it;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.jvmticli.targets.VirtualContentionTarget;
import dev.jvmticli.testing.AgentMode;
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
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * `contention` held to the target's own record of its waits ({@link VirtualContentionTarget}: twelve
 * threads on one {@code synchronized}, each timing its own enters), with platform threads and with
 * virtual threads on two carriers: blocked time per enter within 20% of the target's mean, each
 * wait named by the thread that waited (a virtual thread by its name and id, never its carrier),
 * more threads named than there are carriers, and the holder named. On JDK 24+ a virtual thread
 * blocked on a monitor unmounts while it waits (JEP 491); on JDK 21 it pins its carrier.
 */
class VirtualThreadContentionIT {
    static final String LOCK = "dev.jvmticli.targets.VirtualContentionTarget$Lock";
    /** Two carriers, whatever the machine's cores: the virtual threads outnumber them sixfold. */
    static final List<String> TWO_CARRIERS = List.of("-Djdk.virtualThreadScheduler.parallelism=2",
            "-Djdk.virtualThreadScheduler.maxPoolSize=2");

    @TempDir
    Path dir;

    static Stream<Arguments> cases() {
        List<Arguments> cases = new ArrayList<>();
        for (Jdks.Jdk jdk : Jdks.all()) {
            cases.add(Arguments.of(jdk, "platform", AgentMode.LIVE_ATTACH));
            if (jdk.feature() >= 21) {
                cases.add(Arguments.of(jdk, "virtual", AgentMode.LIVE_ATTACH));
                cases.add(Arguments.of(jdk, "virtual", AgentMode.STARTUP));
            }
        }
        return cases.stream();
    }

    @ParameterizedTest
    @MethodSource("cases")
    void blockedTimeWaitersAndHolderAsTheTargetRecordedThem(Jdks.Jdk jdk, String threads, AgentMode mode) throws Exception {
        List<String> options = new ArrayList<>(TWO_CARRIERS);
        options.addAll(mode.jvmOptions());
        try (TargetJvm target = TargetJvm.start(jdk, VirtualContentionTarget.class, options, threads)) {
            Path waits = dir.resolve("waits-" + threads);
            check(target, threads, waits, waits, jdk + " " + threads + " " + mode);
        }
    }

    /**
     * Debian 11's OpenJDK 11 (platform threads: it has no virtual ones) and Debian 13's OpenJDK 21, whose virtual
     * threads pin their carrier while blocked on a monitor.
     */
    @ParameterizedTest
    @MethodSource("rootJdks")
    void onTheRootsJdks(RootJdk jdk) throws Exception {
        Path library = Path.of(CliRun.run("agent-path").out().strip());
        Path classes = DebianRoots.classes(jdk.root(), library, VirtualContentionTarget.class);
        String threads = jdk.feature() >= 21 ? "virtual" : "platform";
        try (TargetJvm target = TargetJvm.startWrapped(DebianRoots.ownMountNamespace(jdk.root()), classes, jdk.inside(),
                VirtualContentionTarget.class, TWO_CARRIERS, threads)) {
            Path inside = classes.resolve("waits-" + threads);
            check(target, threads, inside, jdk.root().resolve(inside.toString().substring(1)), jdk + " " + threads);
        }
    }

    static Stream<RootJdk> rootJdks() {
        return DebianRoots.jdks().filter(jdk -> jdk.feature() == 11 || jdk.feature() == 21);
    }

    /** One wait the target recorded: the thread's id, whether virtual, nanoseconds waited, whether it found the lock held, name. */
    record Wait(long threadId, boolean virtual, long nanos, boolean contended, String name) {
        static Wait parse(String line) {
            String[] f = line.split("\t", 5);
            return new Wait(Long.parseLong(f[0]), f[1].equals("virtual"), Long.parseLong(f[2]), f[3].equals("held"), f[4]);
        }
    }

    /**
     * Runs contention for 3 s while the target records its waits (written to waitsForTarget, read
     * back from waitsHere), and holds each figure to the record.
     */
    private static void check(TargetJvm target, String threads, Path waitsForTarget, Path waitsHere, String what) throws Exception {
        boolean virtual = threads.equals("virtual");
        long carriers = Long.parseLong(target.ask("carriers"));
        // the agent is loaded first, so that the target's record starts after the attach, as contention's window does
        assertEquals(0, CliRun.run("threads", Long.toString(target.pid())).exit(), what);
        target.ask("clear");
        Result result = CliRun.run("contention", Long.toString(target.pid()), "--duration", "3s", "--json");
        target.ask("write " + waitsForTarget);
        assertEquals(0, result.exit(), what + ": " + result);
        List<Wait> record = Files.readAllLines(waitsHere).stream().map(Wait::parse).toList();
        Map<Long, Wait> byId = new HashMap<>();
        record.forEach(w -> byId.putIfAbsent(w.threadId(), w));
        Set<String> names = byId.values().stream().map(Wait::name).collect(Collectors.toSet());
        assertTrue(record.size() > 50 && byId.size() == VirtualContentionTarget.THREADS, what + ": the target's own record: " + byId.values());

        JsonNode monitor = null;
        for (JsonNode m : Json.parse(result.out()).path("monitors")) {
            monitor = m.path("monitor").asText().startsWith(LOCK + "@") ? m : monitor;
        }
        assertTrue(monitor != null, what + ": " + result.out());
        double toolPerEnter = monitor.path("blockedNanos").asDouble() / monitor.path("enters").asLong();
        // contention sees the contended enters only: the target's own figure is of those that found the lock held
        long[] contended = record.stream().filter(Wait::contended).mapToLong(Wait::nanos).sorted().toArray();
        double targetMean = LongStream.of(contended).average().orElseThrow();
        System.out.printf("%s: contention %.2f ms blocked per enter (%d enters), the target's own %.2f ms mean, %.2f ms median"
                + " (%d contended enters of %d, all: %.2f ms mean); %d carriers%n", what, toolPerEnter / 1e6, monitor.path("enters").asLong(),
                targetMean / 1e6, contended[contended.length / 2] / 1e6, contended.length, record.size(),
                record.stream().mapToLong(Wait::nanos).average().orElseThrow() / 1e6, carriers);
        JsonNode row = monitor;
        assertAll(what,
                () -> assertTrue(Math.abs(toolPerEnter - targetMean) <= 0.2 * targetMean,
                        toolPerEnter / 1e6 + " ms blocked per enter, the target's own mean " + targetMean / 1e6 + " ms"),
                () -> {
                    Set<String> waiters = new HashSet<>();
                    for (JsonNode t : row.path("threads")) {
                        assertOneOfTheTargets(t, byId, names, virtual, "a waiter");
                        waiters.add(t.path("thread").asText() + "#" + t.path("threadId").asText());
                    }
                    assertTrue(waiters.size() > Math.max(2, carriers) && waiters.size() >= VirtualContentionTarget.THREADS / 2,
                            waiters.size() + " distinct waiters named, " + carriers + " carriers: " + row.path("threads"));
                },
                () -> assertTrue(virtual ? carriers >= 1 && carriers <= 2 : carriers == 0, carriers + " carriers"),
                () -> {
                    assertFalse(row.path("holders").isEmpty(), "no holder seen: " + row);
                    for (JsonNode h : row.path("holders")) {
                        assertOneOfTheTargets(h, byId, names, virtual, "a holder");
                    }
                });
    }

    /** A thread contention names is one of the target's looping threads (by id, which names it, when it has one), never a carrier. */
    private static void assertOneOfTheTargets(JsonNode thread, Map<Long, Wait> byId, Set<String> names, boolean virtual, String what) {
        if (thread.has("threadId")) {
            Wait own = byId.get(thread.path("threadId").asLong());
            assertTrue(own != null && own.name().equals(thread.path("thread").asText()) && thread.path("virtual").asBoolean() == virtual,
                    what + " that is none of the target's threads: " + thread + " " + byId.values());
        } else {
            assertTrue(names.contains(thread.path("thread").asText()), what + " that is none of the target's threads: " + thread);
        }
    }
}
