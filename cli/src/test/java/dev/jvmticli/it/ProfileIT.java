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
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import java.util.function.Supplier;
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
    /** Samples of the split threads together for their shares to be compared within 5 points. */
    private static final long SPLIT_SAMPLES = 300;
    /** Samples of the bias thread for its loop's share of them to be told from its polling caller's. */
    private static final long BIAS_SAMPLES = 100;

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
            answer = target.awaitLine("cpu ", Duration.ofSeconds(30));
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

    /**
     * One `profile --json` of the target and the split threads' CPU times over its window: read once
     * the profile runs (not before the CLI's start, attach and profiler load, seconds on a loaded
     * machine, while the threads' shares of the CPU may differ) and again after it.
     */
    private record Profiled(JsonNode doc, long[] cpuNanos) {
        long splitSamples() {
            return samples(doc, "split-a") + samples(doc, "split-b") + samples(doc, "split-c");
        }

        long biasSamples() {
            return biasSamples(innermostJava -> true);
        }

        /** Samples of the bias thread whose innermost Java frame is countedLoop. */
        long loopSamples() {
            return biasSamples((TARGET + "countedLoop")::equals);
        }

        /** The bias thread's samples whose innermost Java frame (null for none) is one of those asked for. */
        private long biasSamples(Predicate<String> innermost) {
            long count = 0;
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
                if (innermost.test(innermostJava)) {
                    count += stack.path("samples").asLong();
                }
            }
            return count;
        }

        /** How many times more CPU the threads needed to get for enough samples: 1 or less when they got enough. */
        double shortBy() {
            return Math.max((double) SPLIT_SAMPLES / Math.max(1, splitSamples()), (double) BIAS_SAMPLES / Math.max(1, biasSamples()));
        }
    }

    private Profiled profile(TargetJvm target, Duration duration) throws Exception {
        String pid = Long.toString(target.pid());
        assertEquals(0, CliRun.run("threads", pid).exit(), "the agent is resident, for the probe");
        CompletableFuture<Result> run = CompletableFuture.supplyAsync(() -> CliRun.run("profile", TIMEOUT, pid,
                "--duration", duration.toMillis() + "ms", "--interval", "1ms", "--json"));
        long[] before;
        try (AgentClient probe = AgentProbe.open(target.pid())) {
            awaitProfileOfAnotherClient(probe, () -> !run.isDone(), () -> run.join().toString());
            before = cpu(target);
        }
        Result result = run.get();
        long[] after = cpu(target);
        assertEquals(0, result.exit(), result.toString());
        long[] used = new long[3];
        for (int i = 0; i < 3; i++) {
            used[i] = after[i] - before[i];
        }
        Profiled profiled = new Profiled(Json.parse(result.out()), used);
        System.out.printf("JVM %d: a profile of %s took %d samples of the split threads, %d of bias%n", target.pid(), duration,
                profiled.splitSamples(), profiled.biasSamples());
        return profiled;
    }

    @ParameterizedTest
    @MethodSource("jdks")
    void sharesMatchTheThreadsOwnCpuTimesAndTheCountedLoopIsBlamed(Jdks.Jdk jdk) throws Exception {
        TargetJvm target = targets.get(jdk);
        // the samples a profile gets are the CPU time its threads get, which a loaded machine gives them less of:
        // a profile too short for enough samples is followed by one as much longer as its own count says
        Duration duration = Duration.ofSeconds(4);
        Profiled profiled = profile(target, duration);
        for (int attempt = 1; attempt < 3 && profiled.shortBy() > 1; attempt++) {
            duration = Duration.ofMillis(Math.min(60_000, (long) (duration.toMillis() * profiled.shortBy() * 1.5)));
            profiled = profile(target, duration);
        }
        JsonNode doc = profiled.doc();
        assertEquals("cpu", doc.path("event").asText());
        assertTrue(List.of("perf_events", "ctimer").contains(doc.path("engine").asText()), "the engine that ran is named: " + doc.path("engine"));

        // by thread: each burns in its own method, but JIT code compiled before the attach maps its samples
        // to the enclosing compiled method (no DebugNonSafepoints then), so the leaf need not be burnX
        long[] samples = {samples(doc, "split-a"), samples(doc, "split-b"), samples(doc, "split-c")};
        long[] cpuNanos = profiled.cpuNanos();
        assertTrue(profiled.splitSamples() >= SPLIT_SAMPLES, "enough samples of the split threads to compare their shares within 5 points: "
                + profiled.splitSamples() + " (at least " + SPLIT_SAMPLES + ") in " + duration);
        long cpuSum = cpuNanos[0] + cpuNanos[1] + cpuNanos[2];
        for (int i = 0; i < 3; i++) {
            double truth = 100.0 * cpuNanos[i] / cpuSum;
            double share = 100.0 * samples[i] / profiled.splitSamples();
            assertTrue(Math.abs(truth - share) <= 5, "split-" + "abc".charAt(i) + ": profile " + share + "%, the thread's own CPU time "
                    + truth + "% (profile " + List.of(samples[0], samples[1], samples[2]) + " samples)");
        }

        long bias = profiled.biasSamples();
        long inLoop = profiled.loopSamples();
        assertTrue(bias >= BIAS_SAMPLES, "enough samples of bias to tell its loop from its polling caller: " + bias + " (at least "
                + BIAS_SAMPLES + ") in " + duration);
        assertTrue(inLoop >= 0.7 * bias, "the loop without a safepoint poll, not its polling caller, takes at least 70% of bias's samples: "
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
            awaitProfileOfAnotherClient(other, cli::isAlive, () -> "exit " + cli.exitValue() + ": " + stderr(cli));
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
    private static void awaitProfileOfAnotherClient(AgentClient client, BooleanSupplier cliRuns, Supplier<String> cliEnd) throws Exception {
        long deadline = System.nanoTime() + 90_000_000_000L; // a CLI JVM on a loaded machine
        while (System.nanoTime() < deadline) {
            AgentError refused = assertThrows(AgentError.class, () -> client.call("profile.stop", Map.of(), JsonNode.class));
            if (refused.code().equals("not_owner")) {
                return;
            }
            assertEquals("not_running", refused.code(), refused.toString());
            if (!cliRuns.getAsBoolean()) {
                throw new AssertionError("the CLI ended before its profile started: " + cliEnd.get());
            }
            Thread.sleep(200);
        }
        throw new AssertionError("the CLI's profile never started");
    }

    private static String stderr(Process process) {
        try {
            return new String(process.getErrorStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
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
        // The kinds are ordered by samples: on a busy machine the loop may be sampled interpreted more often than compiled.
        String countedLoopRow = hottest.lines().filter(l -> l.contains("`" + TARGET + "countedLoop` | ")).findFirst().orElseThrow(() -> new AssertionError(hottest));
        String kinds = countedLoopRow.split("\\|")[4].strip();
        assertTrue(List.of(kinds.split(", ")).contains("compiled"), hottest);
        assertTrue(hottest.contains("## Busiest threads in the CPU profile") && hottest.contains("| `split-a` | "), hottest);
        String stacks = summary.substring(summary.indexOf("## Stacks of the busiest Java threads"));
        assertTrue(stacks.contains("\tat " + TARGET), "the busiest threads' stacks are shown: " + stacks);
        JsonNode index = Json.parse(Files.readString(out.resolve("index.json")));
        assertTrue(index.toString().contains("profile/collapsed.txt"), index.toString());
    }
}
