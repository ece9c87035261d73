package dev.jvmticli.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.jvmticli.targets.LatencyTarget;
import dev.jvmticli.testing.CliProcess;
import dev.jvmticli.testing.CliRun;
import dev.jvmticli.testing.CliRun.Result;
import dev.jvmticli.testing.Json;
import dev.jvmticli.testing.TargetJdks.TargetJdk;
import dev.jvmticli.testing.TargetJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * `dump --trace`: a trace session over the dump's rounds against LatencyTarget, which times its own
 * calls of Orders.place (the truth): trace/trace.json's percentiles, slowest calls and calls over the
 * threshold against the target's record, summary.md's section near the top against it too, the class
 * put back with the SHA-256 it had; a dump while another client instruments the JVM completes and says
 * so in one line; a dump killed mid-way leaves the class with the bytes it had. On every JDK 11 to 25
 * ({@link dev.jvmticli.testing.TargetJdks}: Debian's 11 and 21 in their roots).
 */
class DumpTraceIT {
    private static final Pattern DURATION = Pattern.compile("([0-9.]+)(ns|us|ms|s)");

    @TempDir
    Path work;

    @ParameterizedTest
    @MethodSource("dev.jvmticli.testing.TargetJdks#every")
    void tracesOverTheRoundsAndSummaryMdSaysTheLatenciesAndTheSlowestCallsStack(TargetJdk jdk) throws Exception {
        Path out = work.resolve("incident");
        try (TargetJvm target = jdk.start(LatencyTarget.class, List.of())) {
            String pid = Long.toString(target.pid());
            assertEquals("ran 5", target.ask("run 5")); // Orders is loaded
            assertEquals("reset", target.ask("reset"));
            // the probes go in before the first round; the calls (about 2 s of sleeps, longer on a loaded machine) are made
            // between the rounds, 15 s apart
            Process dump = CliProcess.start(List.of(), jdk.cliJdk(), CliProcess.jar(), "dump", pid, "--out", out.toString(), "--count", "2",
                    "--interval", "15s", "--trace", TraceIT.PLACE, "--trace-threshold", "50ms");
            CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> TraceIT.read(dump.getErrorStream()));
            CompletableFuture.runAsync(() -> TraceIT.read(dump.getInputStream()));
            awaitFirstRound(dump, out);
            assertEquals("ran " + TraceIT.CALLS, target.ask("run " + TraceIT.CALLS));
            assertTrue(dump.isAlive(), "the calls ended inside the dump's window");
            assertTrue(dump.waitFor(120, TimeUnit.SECONDS), "the dump ends");
            assertEquals(0, dump.exitValue(), err.get());
            Map<String, Long> truth = TraceIT.record(target.ask("record"));

            Set<String> listed = new TreeSet<>();
            Json.parse(Files.readString(out.resolve("index.json"))).path("files").forEach(f -> listed.add(f.path("file").asText()));
            assertTrue(listed.containsAll(List.of("trace/trace.txt", "trace/trace.json")), listed.toString());

            // the report: every call counted (all made between the rounds), percentiles within the histogram's error
            JsonNode report = Json.parse(Files.readString(out.resolve("trace/trace.json")));
            TraceIT.assertPercentiles(report, truth);
            JsonNode state = TraceIT.classState(report);
            assertEquals(state.get("sha256").asText(), state.get("restoredSha256").asText(), report.toString());
            JsonNode slowest = report.get("slowest").get(0);
            assertNear(truth.get("slowest0"), slowest.get("nanos").asLong(), 1.0 / 100, "the slowest call: " + slowest);
            long over = 0;
            for (JsonNode group : report.get("overThreshold")) {
                over += group.get("calls").asLong();
            }
            assertEquals(truth.get("over50ms"), over, report.toString());
            assertTrue(Files.readString(out.resolve("trace/trace.txt")).contains("\nClasses put back: 1 of 1 with the bytes they had (SHA-256)\n"));

            // summary.md: right after its first line, before the pauses, the method's row and the slowest call's stack
            String summary = Files.readString(out.resolve("summary.md"));
            int traceAt = summary.indexOf("\n## Traced methods (over the dump, ");
            int pausesAt = summary.indexOf("\n## Longest pauses of the JVM (over the dump, ");
            assertTrue(traceAt == summary.indexOf("\n\n") + 1 && pausesAt > traceAt, summary);
            String section = summary.substring(traceAt, pausesAt);
            List<String> rows = section.lines().filter(l -> l.startsWith("| `")).toList();
            assertEquals(1, rows.size(), section);
            String[] cells = rows.get(0).split(" \\| ");
            assertEquals("| `" + TraceIT.PLACE + "`", cells[0], rows.get(0));
            assertEquals(Long.toString(TraceIT.CALLS), cells[1], rows.get(0));
            assertNear(truth.get("p50"), nanos(cells[2]), 1.0 / 128, "p50: " + rows.get(0));
            assertNear(truth.get("p99"), nanos(cells[3]), 1.0 / 128, "p99: " + rows.get(0));
            assertNear(truth.get("max"), nanos(cells[4]), 1.0 / 128, "max: " + rows.get(0));
            assertEquals(truth.get("errors") + " |", cells[5], rows.get(0));
            Matcher slowestLine = Pattern.compile("\nThe slowest call, (\\S+) in `" + Pattern.quote(TraceIT.PLACE) + "`( \\(it threw\\))?:\n```\n"
                    + "\tat dev\\.jvmticli\\.targets\\.LatencyTarget\\$Orders\\.place:\\d+\n\tat dev\\.jvmticli\\.targets\\.LatencyTarget\\.checkout:\\d+\n")
                    .matcher(section);
            assertTrue(slowestLine.find(), section);
            assertNear(truth.get("slowest0"), nanos(slowestLine.group(1)), 1.0 / 100, "the slowest call: " + section);
            assertTrue(section.contains("\n" + truth.get("over50ms") + " call(s) took 50.0ms or more (--trace-threshold)"), section);
            assertTrue(section.contains("\nClasses put back: 1 of 1 with the bytes they had (SHA-256).\n"), section);
            // the probes going in and out are the dump's own pauses (class redefinitions), not the target's
            String pauses = summary.substring(pausesAt, summary.indexOf("\n## Most waited-on locks"));
            assertFalse(pauses.contains("`RedefineClasses`"), pauses);
            assertTrue(pauses.contains("with --trace, its putting the trace's probes in and taking them out (RedefineClasses)"), pauses);

            assertEquals("ran 10", target.ask("run 10"));
            List<String> stderr = target.stderr().stream().filter(l -> !l.isBlank() && !TraceIT.DYNAMIC_AGENT_WARNING.matcher(l).find()).toList();
            assertEquals(List.of(), stderr, "the target's stderr");
        }
    }

    /**
     * Another client's trace running: the dump completes, summary.md says in one line that --trace was
     * refused (busy), and there is no trace/. Then a dump killed (SIGTERM) between its rounds, its probes
     * in: the agent puts the class back when the connection closes, with the bytes it had.
     */
    @ParameterizedTest
    @MethodSource("dev.jvmticli.testing.TargetJdks#every")
    void refusedWhenBusyInOneLineAndPutBackWhenTheDumpIsKilled(TargetJdk jdk) throws Exception {
        try (TargetJvm target = jdk.start(LatencyTarget.class, List.of())) {
            String pid = Long.toString(target.pid());
            assertEquals("ran 5", target.ask("run 5"));
            String original = TraceIT.shortTraceSha(pid);

            Result usage = CliRun.run("dump", pid, "--out", work.resolve("usage").toString(), "--trace", "place");
            assertEquals(2, usage.exit(), usage.toString());
            assertEquals("jvmti-cli: 'place' is not Class.method (package.Class.method, '*' for any run of characters)", usage.err().lines().findFirst().orElse(""));
            usage = CliRun.run("dump", pid, "--out", work.resolve("usage").toString(), "--trace-threshold", "5ms");
            assertEquals(2, usage.exit(), usage.toString());
            assertEquals("jvmti-cli: --trace-threshold goes with --trace", usage.err().lines().findFirst().orElse(""));

            Process first = TraceIT.startTrace(jdk.cliJdk(), pid, "--duration", "120s");
            TraceIT.awaitTracing(first);
            Path busy = work.resolve("busy");
            Result dump = CliRun.run("dump", pid, "--out", busy.toString(), "--count", "1", "--trace", TraceIT.PLACE);
            assertEquals(0, dump.exit(), dump.toString());
            String summary = Files.readString(busy.resolve("summary.md"));
            List<String> said = summary.lines().filter(l -> l.contains("--trace") || l.contains("Trace of")).toList();
            assertEquals(1, said.size(), summary);
            assertTrue(said.get(0).startsWith("**Trace of `" + TraceIT.PLACE + "`:** not recorded: instrumentation (trace or exceptions) is already"
                    + " running for another client") && said.get(0).endsWith(" (busy)."), said.get(0));
            assertFalse(Files.exists(busy.resolve("trace")), "no trace files");
            assertTrue(dump.err().startsWith("jvmti-cli: dump goes on without --trace: not recorded: "), dump.toString());
            first.destroyForcibly();
            TraceIT.awaitSessionEnded(target.pid());
            assertEquals(original, TraceIT.shortTraceSha(pid));

            Path killed = work.resolve("killed");
            Process cut = CliProcess.start(List.of(), jdk.cliJdk(), CliProcess.jar(), "dump", pid, "--out", killed.toString(), "--count", "2",
                    "--interval", "60s", "--trace", TraceIT.PLACE);
            CompletableFuture.runAsync(() -> TraceIT.read(cut.getErrorStream()));
            CompletableFuture.runAsync(() -> TraceIT.read(cut.getInputStream()));
            awaitFirstRound(cut, killed);
            assertEquals("ran 10", target.ask("run 10")); // through the probes
            cut.toHandle().destroy(); // SIGTERM
            assertTrue(cut.waitFor(30, TimeUnit.SECONDS), "the dump ends");
            TraceIT.awaitSessionEnded(target.pid());
            assertEquals("ran 10", target.ask("run 10"));
            assertEquals(original, TraceIT.shortTraceSha(pid));
            List<String> stderr = target.stderr().stream().filter(l -> !l.isBlank() && !TraceIT.DYNAMIC_AGENT_WARNING.matcher(l).find()).toList();
            assertEquals(List.of(), stderr, "the target's stderr");
        }
    }

    /** Waits until the dump has written its first round's threads: its sessions, the trace's too, started before it. */
    private static void awaitFirstRound(Process dump, Path out) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!Files.exists(out.resolve("round-001/threads.txt"))) {
            assertTrue(dump.isAlive(), "the dump ended before its first round");
            assertTrue(System.nanoTime() < deadline, "no first round within 60 s");
            Thread.sleep(20);
        }
    }

    /** A duration as trace prints it (three significant figures): 1.06ms, 20.4ms, 850ns. */
    private static long nanos(String printed) {
        Matcher m = DURATION.matcher(printed.strip());
        assertTrue(m.matches(), printed);
        double scale = switch (m.group(2)) {
            case "ns" -> 1;
            case "us" -> 1e3;
            case "ms" -> 1e6;
            default -> 1e9;
        };
        return Math.round(Double.parseDouble(m.group(1)) * scale);
    }

    /**
     * Within relativeError of the exact value (TraceIT's: the histogram's 1/128 for a percentile and
     * the maximum, 1/100 for a slowest call), plus what three significant figures round away when
     * printed (half a unit of the third, at most 0.5%) and 100 us for the probe's own time.
     */
    private static void assertNear(long exact, long printed, double relativeError, String what) {
        long bound = (long) (exact * relativeError) + exact / 200 + 100_000;
        assertTrue(Math.abs(printed - exact) <= bound, what + ": " + printed + " ns, the target's own " + exact + " ns");
    }
}
