package dev.jvmticli.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.jvmticli.client.AgentClient;
import dev.jvmticli.client.AgentError;
import dev.jvmticli.payload.AgentLibrary;
import dev.jvmticli.targets.ProfileTarget;
import dev.jvmticli.testing.AgentProbe;
import dev.jvmticli.testing.CliProcess;
import dev.jvmticli.testing.CliRun;
import dev.jvmticli.testing.CliRun.Result;
import dev.jvmticli.testing.Jdks;
import dev.jvmticli.testing.Json;
import dev.jvmticli.testing.TargetJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** `profile` and `dump --profile` against a target whose CPU use is known, on every installed JDK. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ProfileIT {
    private static final String TARGET = "dev.jvmticli.targets.ProfileTarget.";
    private static final String JEP_451 = "WARNING: A JVM TI agent has been loaded dynamically";
    /** The first profile.start loads async-profiler, seconds on a loaded machine: more than the default 10 s there. */
    private static final String TIMEOUT = "--timeout=60s";

    private final Map<Jdks.Jdk, TargetJvm> targets = new HashMap<>();

    @TempDir
    Path temp;

    Stream<Jdks.Jdk> jdks() {
        return Jdks.stream();
    }

    @BeforeAll
    void start() {
        // C2, and no safepoint poll in a counted loop: the case a safepoint-biased profiler gets wrong
        List<String> options = List.of("-XX:TieredStopAtLevel=4", "-XX:-UseCountedLoopSafepoints", "-XX:CompileCommand=quiet",
                "-XX:CompileCommand=dontinline," + ProfileTarget.class.getName() + "::countedLoop");
        Jdks.all().forEach(jdk -> targets.put(jdk, TargetJvm.start(jdk, ProfileTarget.class, options).profiled()));
    }

    @AfterAll
    void stop() {
        targets.values().forEach(TargetJvm::close);
    }

    /** The split threads' CPU times; the JNI checker's signal-handler listing may come first on stdout. */
    private static long[] cpu(TargetJvm target) {
        String answer = target.ask("cpu");
        if (!answer.startsWith("cpu ")) {
            answer = target.awaitLine("cpu ", java.time.Duration.ofSeconds(30));
        }
        return Stream.of(answer.substring(4).split(" ")).mapToLong(Long::parseLong).toArray();
    }

    private static long samples(JsonNode doc, String thread) {
        for (JsonNode t : doc.path("threads")) {
            if (t.path("name").asText().equals(thread)) {
                return t.path("samples").asLong();
            }
        }
        return 0;
    }

    @ParameterizedTest
    @MethodSource("jdks")
    void sharesMatchTheThreadsOwnCpuTimesAndTheCountedLoopIsBlamed(Jdks.Jdk jdk) {
        TargetJvm target = targets.get(jdk);
        long[] before = cpu(target);
        Result result = CliRun.run("profile", TIMEOUT, Long.toString(target.pid()), "--duration", "4s", "--interval", "1ms", "--json");
        long[] after = cpu(target);
        assertEquals(0, result.exit(), result.toString());
        JsonNode doc = Json.parse(result.out());
        assertEquals("cpu", doc.path("event").asText());
        assertTrue(List.of("perf_events", "ctimer").contains(doc.path("engine").asText()), "the engine that ran is named: " + doc.path("engine"));

        // by thread: each burns in its own method, but JIT code compiled before the attach maps its samples
        // to the enclosing compiled method (no DebugNonSafepoints then), so the leaf need not be burnX
        long[] profiled = {samples(doc, "split-a"), samples(doc, "split-b"), samples(doc, "split-c")};
        long profiledSum = profiled[0] + profiled[1] + profiled[2];
        long trueSum = 0;
        for (int i = 0; i < 3; i++) {
            trueSum += after[i] - before[i];
        }
        assertTrue(profiledSum >= 300, "enough samples to compare shares: " + profiledSum);
        for (int i = 0; i < 3; i++) {
            double truth = 100.0 * (after[i] - before[i]) / trueSum;
            double share = 100.0 * profiled[i] / profiledSum;
            assertTrue(Math.abs(truth - share) <= 5, "split-" + "abc".charAt(i) + ": profile " + share + "%, the thread's own CPU time "
                    + truth + "% (profile " + List.of(profiled[0], profiled[1], profiled[2]) + " samples)");
        }

        long bias = 0;
        long inLoop = 0;
        for (JsonNode stack : doc.path("stacks")) {
            if (!stack.path("thread").asText().equals("bias")) {
                continue;
            }
            String innermostJava = null;
            for (JsonNode frame : stack.path("frames")) {
                if (List.of("interpreted", "c1", "compiled", "inlined").contains(frame.path("kind").asText())) {
                    innermostJava = frame.path("name").asText();
                }
            }
            bias += stack.path("samples").asLong();
            if ((TARGET + "countedLoop").equals(innermostJava)) {
                inLoop += stack.path("samples").asLong();
            }
        }
        assertTrue(bias >= 100 && inLoop >= 0.7 * bias, "the loop without a safepoint poll, not its polling caller, takes the samples: "
                + inLoop + " of " + bias);

        long warnings = target.output().stream().filter(l -> l.text().startsWith(JEP_451)).count();
        assertTrue(warnings <= 1, "JEP 451's warning once at most (our agent's), not again for the profiler: " + warnings);
    }

    @ParameterizedTest
    @MethodSource("jdks")
    void refusesALibraryWithOneByteChangedOrOneAnybodyCouldWrite(Jdks.Jdk jdk) throws Exception {
        long pid = targets.get(jdk).pid();
        byte[] pinned = Files.readAllBytes(AgentLibrary.profiler().extract());
        byte[] changed = pinned.clone();
        changed[changed.length / 2] ^= 1;
        Path tampered = Files.write(temp.resolve("libasyncProfiler-" + jdk.feature() + ".so"), changed);
        Files.setPosixFilePermissions(tampered, PosixFilePermissions.fromString("r--r--r--"));
        Path writable = Files.write(temp.resolve("writable-" + jdk.feature() + ".so"), pinned);
        Files.setPosixFilePermissions(writable, PosixFilePermissions.fromString("rw-r--r--"));
        Path link = Files.createSymbolicLink(temp.resolve("link-" + jdk.feature() + ".so"), AgentLibrary.profiler().extract());
        CliRun.run("threads", Long.toString(pid)); // the agent is resident
        try (AgentClient client = AgentProbe.open(pid)) {
            AgentError refused = assertThrows(AgentError.class, () -> start(client, tampered));
            assertEquals("profiler_unavailable", refused.code());
            assertTrue(refused.agentMessage().contains("its SHA-256 is ") && refused.agentMessage().contains("not the"), refused.agentMessage());
            AgentError unsafe = assertThrows(AgentError.class, () -> start(client, writable));
            assertTrue(unsafe.agentMessage().contains("nobody can write to"), unsafe.agentMessage());
            AgentError linked = assertThrows(AgentError.class, () -> start(client, link));
            assertTrue(linked.agentMessage().startsWith("cannot open the profiling library"), linked.agentMessage());
            AgentError none = assertThrows(AgentError.class, () -> client.call("profile.stop", Map.of(), JsonNode.class));
            assertEquals("not_running", none.code(), "no refused library started a profile");
        }
    }

    private static void start(AgentClient client, Path library) {
        client.call("profile.start", Map.of("library", library.toString(), "event", "cpu", "interval", 10_000_000), JsonNode.class);
    }

    @ParameterizedTest
    @MethodSource("jdks")
    void aKilledCliLeavesNoProfilerRunningAndASecondClientIsBusy(Jdks.Jdk jdk) throws Exception {
        long pid = targets.get(jdk).pid();
        Path library = AgentLibrary.profiler().extract();
        Process cli = CliProcess.start(List.of(), jdk, CliProcess.jar(), "profile", TIMEOUT, Long.toString(pid), "--duration", "120s");
        try (AgentClient other = AgentProbe.open(pid)) {
            awaitProfileOfAnotherClient(other, cli);
            AgentError busy = assertThrows(AgentError.class, () -> start(other, library));
            assertEquals("busy", busy.code(), busy.toString());
            assertTrue(busy.agentMessage().contains("profiling is already running for another client"), busy.agentMessage());
        } finally {
            cli.destroyForcibly();
            assertTrue(cli.waitFor(10, java.util.concurrent.TimeUnit.SECONDS));
        }
        Result next = null;
        for (int attempt = 0; attempt < 20 && (next == null || next.exit() != 0); attempt++) {
            next = CliRun.run("profile", TIMEOUT, Long.toString(pid), "--duration", "1s", "--json");
        }
        assertEquals(0, next.exit(), "the killed CLI's profile was stopped: " + next);
        assertTrue(Json.parse(next.out()).path("samples").asLong() > 0, next.out());
    }

    @ParameterizedTest
    @MethodSource("jdks")
    void theJvmsOwnThreadsCarryTheNamesJstackPrintsNotTheEnginesFifteenBytes(Jdks.Jdk jdk) {
        // wall samples every thread, running or not, so the compiler thread is in the report however idle it is
        Result result = CliRun.run("profile", TIMEOUT, Long.toString(targets.get(jdk).pid()), "--event", "wall", "--duration", "1s", "--json");
        assertEquals(0, result.exit(), result.toString());
        List<String> names = new java.util.ArrayList<>();
        Json.parse(result.out()).path("threads").forEach(t -> names.add(t.path("name").asText()));
        assertTrue(names.contains("C2 CompilerThread0") && !names.contains("C2 CompilerThre"), names.toString());
    }

    /**
     * Waits until the CLI's profile runs, asking by a stop, which only the profile's own client may
     * do and which starts nothing: a probe that started profiles of its own could hold the profiler
     * just when the CLI's start arrives, and the CLI would end refused as busy.
     */
    private static void awaitProfileOfAnotherClient(AgentClient client, Process cli) throws Exception {
        long deadline = System.nanoTime() + 90_000_000_000L; // a CLI JVM on a loaded machine
        while (System.nanoTime() < deadline) {
            AgentError refused = assertThrows(AgentError.class, () -> client.call("profile.stop", Map.of(), JsonNode.class));
            if (refused.code().equals("not_owner")) {
                return;
            }
            assertEquals("not_running", refused.code(), refused.toString());
            if (!cli.isAlive()) {
                throw new AssertionError("the CLI ended before its profile started, exit " + cli.exitValue() + ": "
                        + new String(cli.getErrorStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8));
            }
            Thread.sleep(200);
        }
        throw new AssertionError("the CLI's profile never started");
    }

    @ParameterizedTest
    @MethodSource("jdks")
    void dumpAddsTheProfileAndItsHottestMethodsToTheSummary(Jdks.Jdk jdk) throws Exception {
        Path out = temp.resolve("dump-" + jdk.feature());
        Result result = CliRun.run("dump", TIMEOUT, Long.toString(targets.get(jdk).pid()), "--out", out.toString(), "--interval", "1s",
                "--profile", "2s");
        assertEquals(0, result.exit(), result.toString());
        String collapsed = Files.readString(out.resolve("profile/collapsed.txt"));
        assertTrue(collapsed.lines().anyMatch(l -> l.startsWith("[split-a tid=") && l.contains("ProfileTarget.burn_[")), collapsed);
        assertTrue(Files.readString(out.resolve("profile/flame.html")).contains("countedLoop"));
        String summary = Files.readString(out.resolve("summary.md"));
        String hottest = summary.substring(summary.indexOf("## Hottest methods (CPU profile, "));
        assertTrue(hottest.contains("`" + TARGET + "countedLoop` | compiled"), hottest);
        assertTrue(hottest.contains("## Busiest threads in the CPU profile") && hottest.contains("| `split-a` | "), hottest);
        String stacks = summary.substring(summary.indexOf("## Stacks of the busiest Java threads"));
        assertTrue(stacks.contains("\tat " + TARGET), "the busiest threads' stacks are shown: " + stacks);
        JsonNode index = Json.parse(Files.readString(out.resolve("index.json")));
        assertTrue(index.toString().contains("profile/collapsed.txt"), index.toString());
    }
}
