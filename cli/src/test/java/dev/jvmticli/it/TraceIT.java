package dev.jvmticli.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.jvmticli.client.AgentClient;
import dev.jvmticli.client.AgentError;
import dev.jvmticli.client.TraceInstallRequest;
import dev.jvmticli.client.ClassBytesRequest;
import dev.jvmticli.client.TraceReport;
import dev.jvmticli.client.TraceSession;
import dev.jvmticli.client.TraceStartRequest;
import dev.jvmticli.client.TraceStarted;
import dev.jvmticli.instrument.LatencyProbes;
import dev.jvmticli.instrument.ProbeClass;
import dev.jvmticli.targets.LatencyTarget;
import dev.jvmticli.targets.WideTarget;
import dev.jvmticli.testing.AgentProbe;
import dev.jvmticli.testing.CliProcess;
import dev.jvmticli.testing.CliRun;
import dev.jvmticli.testing.DebianRoots;
import dev.jvmticli.testing.CliRun.Result;
import dev.jvmticli.testing.Jdks;
import dev.jvmticli.testing.Json;
import dev.jvmticli.testing.RawAgentSocket;
import dev.jvmticli.testing.TargetJvm;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

/**
 * {@code trace} against a target that times its own calls ({@link LatencyTarget}), and the
 * instrumentation engine's promise to put every class back byte for byte: after a normal end, a
 * killed CLI, a detach, and new bytes the JVM refuses (checked by the SHA-256 of the bytes the next
 * session reads at its start), with the traced method still answering and nothing on the target's
 * stderr (no VerifyError, no LinkageError).
 */
class TraceIT {
    static final String PLACE = "dev.jvmticli.targets.LatencyTarget$Orders.place";
    private static final String ORDERS = "Ldev/jvmticli/targets/LatencyTarget$Orders;";
    static final int CALLS = 400;
    static final java.util.regex.Pattern DYNAMIC_AGENT_WARNING = java.util.regex.Pattern.compile(
            "^WARNING: (A JVM TI agent has been loaded dynamically|If a serviceability tool is in use|Dynamic loading of agents)");

    static Stream<Jdks.Jdk> jdks() {
        return Jdks.stream();
    }

    @ParameterizedTest
    @MethodSource("jdks")
    void percentilesMatchTheTargetsOwnRecordAndEveryEndPutsTheClassBack(Jdks.Jdk jdk) throws Exception {
        try (TargetJvm target = TargetJvm.start(jdk, LatencyTarget.class)) {
            String pid = Long.toString(target.pid());
            assertEquals("ran 5", target.ask("run 5")); // Orders is loaded
            assertEquals("reset", target.ask("reset"));

            // a normal end (SIGTERM ends the window early; the report still comes)
            Process cli = startTrace(jdk, pid, "--duration", "120s", "--json", "--threshold", "50ms", "--top", "3");
            CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> read(cli.getInputStream()));
            awaitTracing(cli);
            assertEquals("ran " + CALLS, target.ask("run " + CALLS));
            cli.toHandle().destroy(); // SIGTERM, the streams left open (Process.destroy closes them)
            assertTrue(cli.waitFor(60, TimeUnit.SECONDS));
            JsonNode report = Json.parse(out.get());
            Map<String, Long> truth = record(target.ask("record"));
            assertPercentiles(report, truth);
            String original = classState(report).get("sha256").asText();
            assertEquals(original, classState(report).get("restoredSha256").asText(), report.toString());

            // the slowest calls are the target's slowest, each made by checkout; the calls over 50 ms grouped by stack
            assertSlowest(report, truth, "dev.jvmticli.targets.LatencyTarget.checkout:");
            long over = 0;
            for (JsonNode group : report.get("overThreshold")) {
                over += group.get("calls").asLong();
            }
            assertEquals(truth.get("over50ms"), over, report.toString());

            // the CLI killed: the agent puts the class back when the connection closes
            Process killed = startTrace(jdk, pid, "--duration", "120s");
            awaitTracing(killed);
            killed.destroyForcibly();
            awaitSessionEnded(target.pid());
            assertEquals("ran 10", target.ask("run 10"));
            assertEquals(original, shortTraceSha(pid));

            // a detach from another CLI during the session
            Process detached = startTrace(jdk, pid, "--duration", "120s");
            awaitTracing(detached);
            Result detach = CliRun.run("detach", pid);
            assertEquals(0, detach.exit(), detach.toString());
            assertTrue(detached.waitFor(20, TimeUnit.SECONDS));
            assertEquals("ran 10", target.ask("run 10"));
            assertEquals(original, shortTraceSha(pid));

            // a second CLI is told the JVM is being traced
            Process first = startTrace(jdk, pid, "--duration", "120s");
            awaitTracing(first);
            Result second = CliRun.run("trace", pid, PLACE, "--duration", "1s");
            assertEquals(1, second.exit(), second.toString());
            assertTrue(second.err().contains("instrumentation (trace or exceptions) is already running for another client") && second.err().contains("(busy)"),
                    second.toString());
            first.destroyForcibly();
            awaitSessionEnded(target.pid());

            // bytes the JVM does not verify: refused, nothing changed, the session over
            try (AgentClient client = AgentProbe.open(target.pid())) {
                TraceStarted started = client.call(new TraceStartRequest("dev.jvmticli.targets.LatencyTarget$Orders", ProbeClass.bytes()),
                        TraceStarted.class);
                assertEquals(original, started.classes().get(0).sha256());
                ClassBytesRequest.send(client, "trace", 0, unverifiable(started.classes().get(0).bytes()));
                AgentError refused = assertThrows(AgentError.class, () -> client.call(new TraceInstallRequest(1, 0, 5), Map.class));
                assertEquals("refused", refused.code(), refused.getMessage());
                assertTrue(refused.getMessage().contains("every class is left as it was"), refused.getMessage());
                AgentError ended = assertThrows(AgentError.class, () -> client.call("trace.stop", Map.of(), Map.class));
                assertEquals("not_running", ended.code());
            }
            assertEquals("ran 10", target.ask("run 10"));
            assertEquals(original, shortTraceSha(pid));

            // JDK 21+ warns once of the dynamically loaded agent (JEP 451): that is the attach, not trace
            List<String> stderr = target.stderr().stream().filter(l -> !l.isBlank() && !DYNAMIC_AGENT_WARNING.matcher(l).find()).toList();
            assertEquals(List.of(), stderr, "the target's stderr");
        }
    }

    /**
     * The same 400 calls made by 8 virtual threads at once (the newest JDK, 21 or later): counted,
     * each percentile within the histogram's error of the target's own record, errors exact, and
     * the slowest calls the target's slowest with their virtual thread's own frames under them.
     */
    @Test
    void callsFromVirtualThreadsMatchTheTargetsOwnRecord() throws Exception {
        Jdks.Jdk jdk = Jdks.atLeast(21).orElseThrow(() -> new AssertionError("the build needs a JDK 21 or later for virtual threads"));
        try (TargetJvm target = TargetJvm.start(jdk, LatencyTarget.class)) {
            assertVirtualThreadCalls(target, jdk);
        }
    }

    /** The same on Debian 13's OpenJDK 21, in its root and a mount namespace of its own (.ci/roots; DebianRootsIT). */
    @Test
    void callsFromVirtualThreadsOnOpenJdk21InItsOwnRoot() throws Exception {
        DebianRoots.RootJdk jdk = DebianRoots.jdks().filter(j -> j.feature() == 21).findFirst()
                .orElseThrow(() -> new AssertionError("no root with JDK 21"));
        Path library = Path.of(CliRun.run("agent-path").out().strip());
        Path classes = DebianRoots.classes(jdk.root(), library, LatencyTarget.class);
        try (TargetJvm target = TargetJvm.startWrapped(DebianRoots.ownMountNamespace(jdk.root()), classes, jdk.inside(), LatencyTarget.class,
                List.of())) {
            assertVirtualThreadCalls(target, Jdks.current());
        }
    }

    private static void assertVirtualThreadCalls(TargetJvm target, Jdks.Jdk cliJdk) throws Exception {
        String pid = Long.toString(target.pid());
        assertEquals("ran 5", target.ask("run 5"));
        assertEquals("reset", target.ask("reset"));
        Process cli = startTrace(cliJdk, pid, "--duration", "120s", "--json", "--top", "3");
        CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> read(cli.getInputStream()));
        awaitTracing(cli);
        assertEquals("ran " + CALLS, target.ask("vrun " + CALLS + " 8"));
        cli.toHandle().destroy();
        assertTrue(cli.waitFor(60, TimeUnit.SECONDS));
        JsonNode report = Json.parse(out.get());
        Map<String, Long> truth = record(target.ask("record"));
        assertPercentiles(report, truth);
        assertEquals(classState(report).get("sha256").asText(), classState(report).get("restoredSha256").asText(), report.toString());
        assertSlowest(report, truth, "dev.jvmticli.targets.LatencyTarget.lambda$checkoutVirtually$");
        List<String> stderr = target.stderr().stream().filter(l -> !l.isBlank() && !DYNAMIC_AGENT_WARNING.matcher(l).find()).toList();
        assertEquals(List.of(), stderr, "the target's stderr");
    }

    /**
     * The report's window is the time the probes were in, from the install to the stop, as exceptions'
     * is (ExceptionsIT): a client slow between the start and the install (a CLI rewriting many classes
     * on a loaded machine) makes it no longer, so that calls/s is the calls over the time they were
     * counted. Here the client waits 2 s there.
     */
    @Test
    void theWindowIsTheTimeTheProbesWereIn() throws Exception {
        try (TargetJvm target = TargetJvm.start(Jdks.current(), LatencyTarget.class)) {
            assertEquals("ran 5", target.ask("run 5")); // Orders is loaded
            assertEquals(0, CliRun.run("threads", Long.toString(target.pid())).exit()); // the agent is loaded
            try (AgentClient client = AgentProbe.open(target.pid())) {
                TraceStarted started = client.call(new TraceStartRequest("dev.jvmticli.targets.LatencyTarget$Orders", ProbeClass.bytes()),
                        TraceStarted.class);
                Thread.sleep(2000);
                LatencyProbes.Rewritten rewritten = LatencyProbes.rewrite(started.classes().get(0).bytes(), "place"::equals,
                        i -> (started.generation() << started.idBits()) | i);
                ClassBytesRequest.send(client, "trace", 0, rewritten.bytes());
                long installing = System.nanoTime();
                client.call(new TraceInstallRequest(rewritten.methods().size(), 0, 1), Map.class);
                long installed = System.nanoTime();
                assertEquals("ran " + CALLS, target.ask("run " + CALLS));
                long stopping = System.nanoTime();
                TraceReport report = TraceSession.stop(client);
                long stopped = System.nanoTime();
                assertTrue(report.durationNanos() >= stopping - installed && report.durationNanos() <= stopped - installing,
                        "a window of " + report.durationNanos() / 1_000_000 + " ms, the probes in for " + (stopping - installed) / 1_000_000
                                + " to " + (stopped - installing) / 1_000_000 + " ms");
                assertEquals(CALLS, report.methods().get(0).calls(), report.toString());
            }
        }
    }

    /**
     * --depth 1: pay's callees timed against pay's own record of charge and reserve (each percentile
     * within the histogram's error plus 100 us), every callee's calls and errors exact (reserve throws
     * into pay's handler, check out of pay), and only pay's own calls among the slowest.
     */
    @ParameterizedTest
    @MethodSource("jdks")
    void depthOneTimesTheCallsTheTracedMethodMakes(Jdks.Jdk jdk) throws Exception {
        try (TargetJvm target = TargetJvm.start(jdk, LatencyTarget.class)) {
            String pid = Long.toString(target.pid());
            assertEquals("paid 1", target.ask("pay 1")); // the classes are loaded
            assertEquals("reset", target.ask("reset"));
            Process cli = startTraceOf(jdk, pid, "dev.jvmticli.targets.LatencyTarget$Payments.pay", "--depth", "1", "--duration", "120s",
                    "--json", "--top", "3");
            CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> read(cli.getInputStream()));
            awaitTracing(cli);
            assertEquals("paid 192", target.ask("pay 200")); // 8 audits fail
            cli.toHandle().destroy();
            assertTrue(cli.waitFor(60, TimeUnit.SECONDS));
            JsonNode report = Json.parse(out.get());
            Map<String, Long> truth = new HashMap<>();
            for (String field : target.ask("payments").split(" ")) {
                String[] kv = field.split("=", 2);
                truth.put(kv[0], Long.parseLong(kv[1]));
            }
            assertEquals(200, truth.get("calls"));

            JsonNode pay = report.get("methods").get(0);
            assertEquals(1, report.get("methods").size(), report.toString());
            assertEquals(200, pay.get("calls").asLong(), report.toString());
            assertEquals(8, pay.get("errors").asLong(), report.toString());
            Map<String, JsonNode> callees = new HashMap<>();
            for (JsonNode c : report.get("callees")) {
                assertEquals("dev.jvmticli.targets.LatencyTarget$Payments.pay", c.get("caller").asText(), c.toString());
                callees.put(c.get("callee").get("method").asText(), c.get("callee"));
            }
            assertCallee(callees, "dev.jvmticli.targets.LatencyTarget$Bank.charge", 200, 0, report);
            assertCallee(callees, "dev.jvmticli.targets.LatencyTarget$Stock.reserve", 200, truth.get("reserve_errors"), report);
            assertEquals(20, truth.get("reserve_errors"));
            assertCallee(callees, "dev.jvmticli.targets.LatencyTarget$Audit.check", 200, 8, report);
            assertCallee(callees, "java.lang.System.nanoTime", 600, 0, report);
            for (String callee : List.of("charge", "reserve")) {
                JsonNode row = callees.get(callee.equals("charge") ? "dev.jvmticli.targets.LatencyTarget$Bank.charge"
                        : "dev.jvmticli.targets.LatencyTarget$Stock.reserve");
                for (String p : List.of("p50", "p90", "p99", "max")) {
                    long exact = truth.get(callee + "_" + p);
                    long traced = row.get(p).asLong();
                    System.out.printf("%s %s: traced %d ns, the target's own %d ns%n", callee, p, traced, exact);
                    assertTrue(Math.abs(traced - exact) <= exact / 128 + 100_000, callee + " " + p + ": traced " + traced + " ns, the target's own "
                            + exact + " ns; " + report);
                }
            }
            for (JsonNode call : report.get("slowest")) {
                assertEquals("dev.jvmticli.targets.LatencyTarget$Payments.pay", call.get("method").asText(), call.toString());
            }
            assertEquals(classState(report, "Ldev/jvmticli/targets/LatencyTarget$Payments;").get("sha256").asText(),
                    classState(report, "Ldev/jvmticli/targets/LatencyTarget$Payments;").get("restoredSha256").asText());
            List<String> stderr = target.stderr().stream().filter(l -> !l.isBlank() && !DYNAMIC_AGENT_WARNING.matcher(l).find()).toList();
            assertEquals(List.of(), stderr, "the target's stderr");
        }
    }

    /**
     * --depth 1 on a JDK class HotSpot hands out without stack maps (JDK 17 keeps none for a boot class
     * it did not verify, outside the CDS archive): Scanner.hasNextInt catches Integer.parseInt's
     * NumberFormatException in its own handler, and each of those calls counts under parseInt, with
     * its error. Before the check went before a frameless handler's first instruction, parseInt
     * counted none of them (JDK 17). On JDK 25 the same is checked whatever the class's bytes hold.
     */
    @ParameterizedTest
    @MethodSource("jdks")
    void depthOneCountsACalleesCaughtExceptionInAJdkClassWithoutStackMaps(Jdks.Jdk jdk) throws Exception {
        try (TargetJvm target = TargetJvm.start(jdk, LatencyTarget.class)) {
            String pid = Long.toString(target.pid());
            assertEquals("scanned 1", target.ask("scan 1")); // Scanner is loaded
            Process cli = startTraceOf(jdk, pid, "java.util.Scanner.hasNextInt", "--depth", "1", "--duration", "120s", "--json");
            CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> read(cli.getInputStream()));
            awaitTracing(cli);
            assertEquals("scanned 50", target.ask("scan 50"));
            cli.toHandle().destroy();
            assertTrue(cli.waitFor(60, TimeUnit.SECONDS));
            JsonNode report = Json.parse(out.get());
            Map<String, JsonNode> callees = new HashMap<>();
            for (JsonNode c : report.get("callees")) {
                callees.merge(c.get("callee").get("method").asText(), c.get("callee"), (a, b) -> a.get("calls").asLong() > 0 ? a : b);
            }
            assertCallee(callees, "java.lang.Integer.parseInt", 50, 50, report);
            JsonNode scanner = classState(report, "Ljava/util/Scanner;");
            assertEquals(scanner.get("sha256").asText(), scanner.get("restoredSha256").asText(), report.toString());
            List<String> stderr = target.stderr().stream().filter(l -> !l.isBlank() && !DYNAMIC_AGENT_WARNING.matcher(l).find()).toList();
            assertEquals(List.of(), stderr, "the target's stderr");
        }
    }

    private static void assertCallee(Map<String, JsonNode> callees, String name, long calls, long errors, JsonNode report) {
        JsonNode row = callees.get(name);
        assertTrue(row != null, name + " not among the callees: " + report);
        assertEquals(calls, row.get("calls").asLong(), name + ": " + report);
        assertEquals(errors, row.get("errors").asLong(), name + ": " + report);
    }

    /**
     * --collapsed and --html: the calls over the threshold by stack, outermost frame first, weighed in
     * nanoseconds: as much time as the target's own record of its calls over 15 ms (within 1% plus
     * 100 us a call), each stack ending in place under checkout; the page written.
     */
    @Test
    void collapsedStacksWeighTheCallsOverTheThreshold(@TempDir Path directory) throws Exception {
        Jdks.Jdk jdk = Jdks.current();
        Path page = directory.resolve("slow.html");
        try (TargetJvm target = TargetJvm.start(jdk, LatencyTarget.class)) {
            String pid = Long.toString(target.pid());
            assertEquals("ran 5", target.ask("run 5"));
            assertEquals("reset", target.ask("reset"));
            Process cli = startTrace(jdk, pid, "--duration", "120s", "--threshold", "15ms", "--collapsed", "--html", page.toString());
            CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> read(cli.getInputStream()));
            awaitTracing(cli);
            assertEquals("ran " + CALLS, target.ask("run " + CALLS));
            cli.toHandle().destroy();
            assertTrue(cli.waitFor(60, TimeUnit.SECONDS));
            String collapsed = out.get();
            Map<String, Long> truth = record(target.ask("record"));
            long calls = truth.get("over15ms");
            long nanos = truth.get("over15msNanos");
            long weight = 0;
            for (String line : collapsed.strip().split("\n")) {
                int space = line.lastIndexOf(' ');
                String[] frames = line.substring(0, space).split(";");
                assertTrue(frames[frames.length - 1].startsWith("dev.jvmticli.targets.LatencyTarget$Orders.place:"), line);
                assertTrue(frames[frames.length - 2].startsWith("dev.jvmticli.targets.LatencyTarget.checkout:"), line);
                weight += Long.parseLong(line.substring(space + 1));
            }
            assertTrue(calls > 10, truth.toString());
            // as the slowest calls are held to the target's own: within 1% plus 100 us a call
            assertTrue(Math.abs(weight - nanos) <= nanos / 100 + calls * 100_000, "collapsed " + weight + " ns, the target's own " + nanos + " ns: " + collapsed);
            String html = Files.readString(page);
            assertTrue(html.contains("Slow calls of " + PLACE) && html.contains("LatencyTarget$Orders.place"), "the page");
        }
    }

    /**
     * The JDK's classes only when named without a wildcard: {@code java.util.Rand*} finds nothing and
     * says why; {@code java.util.Random.nextDouble} (java.base, a named module, made to read the
     * probe's) counts exactly the calls checkout made, Random (a class of the CDS archive) is put back
     * with the bytes first read, which the next session reads again, and Random still answers after.
     */
    @ParameterizedTest
    @MethodSource("jdks")
    void theJdksClassesOnlyWhenNamedWithoutAWildcard(Jdks.Jdk jdk) throws Exception {
        try (TargetJvm target = TargetJvm.start(jdk, LatencyTarget.class)) {
            String pid = Long.toString(target.pid());
            assertEquals("ran 1", target.ask("run 1"));
            Result wildcard = CliRun.run("trace", pid, "java.util.Rand*.nextDouble", "--duration", "1s");
            assertEquals(1, wildcard.exit(), wildcard.toString());
            assertTrue(wildcard.err().contains("the JDK's classes are traced only when named without a wildcard"), wildcard.toString());

            Process cli = startTraceOf(jdk, pid, "java.util.Random.nextDouble", "--duration", "120s", "--json");
            CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> read(cli.getInputStream()));
            awaitTracing(cli);
            assertEquals("ran 20", target.ask("run 20"));
            cli.toHandle().destroy();
            assertTrue(cli.waitFor(60, TimeUnit.SECONDS));
            JsonNode report = Json.parse(out.get());
            long calls = 0;
            for (JsonNode method : report.get("methods")) {
                calls += method.get("calls").asLong();
            }
            assertEquals(20, calls, report.toString());
            // Random comes from the CDS archive: put back with the bytes first read, and a later session reads them again
            JsonNode random = report.get("classes").get(0);
            assertEquals("Ljava/util/Random;", random.get("name").asText());
            assertEquals(random.get("sha256").asText(), random.get("restoredSha256").asText(), report.toString());
            assertEquals("ran 1", target.ask("run 1"));
            Result again = CliRun.run("trace", pid, "java.util.Random.nextDouble", "--duration", "300ms", "--json");
            assertEquals(0, again.exit(), again.toString());
            JsonNode randomAgain = Json.parse(again.out()).get("classes").get(0);
            assertEquals(random.get("sha256").asText(), randomAgain.get("sha256").asText(), again.toString());
            assertEquals(random.get("sha256").asText(), randomAgain.get("restoredSha256").asText(), again.toString());
            assertEquals("ran 1", target.ask("run 1"));
            List<String> stderr = target.stderr().stream().filter(l -> !l.isBlank() && !DYNAMIC_AGENT_WARNING.matcher(l).find()).toList();
            assertEquals(List.of(), stderr, "the target's stderr");
        }
    }

    /**
     * The bounds: 32 classes of 9 methods each (WideTarget's Part in 32 loaders) are too many
     * methods, refused in one line (exit 1) after the classes were read and before anything was
     * installed (each Class's own count of its redefinitions); their m1 alone is within the bounds and traced; a 33rd class is refused before any
     * class is read: no Part class redefined, by each Class's own count.
     */
    @ParameterizedTest
    @MethodSource("jdks")
    void refusesPastItsBoundsInOneLineAndInstrumentsNothing(Jdks.Jdk jdk) throws Exception {
        String part = "dev.jvmticli.targets.WideTarget$Part";
        try (TargetJvm target = TargetJvm.start(jdk, WideTarget.class, List.of("--add-opens", "java.base/java.lang=ALL-UNNAMED"))) {
            String pid = Long.toString(target.pid());
            assertEquals("loaded 32", target.ask("load 32"));
            assertEquals("redefinitions 0", target.ask("redefinitions"));
            Result tooManyMethods = CliRun.run("trace", pid, part + ".*", "--duration", "1s");
            assertEquals(1, tooManyMethods.exit(), tooManyMethods.toString());
            assertEquals("jvmti-cli: 288 methods match; a session traces at most 256: name fewer", tooManyMethods.err().strip());
            assertEquals("", tooManyMethods.out());
            assertNoSession(target.pid());
            // each class read once (a retransformation that changes nothing), none installed (a second) nor put back
            assertEquals("redefinitions 32", target.ask("redefinitions"));

            Process cli = startTraceOf(jdk, pid, part + ".m1", "--duration", "120s", "--json");
            CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> read(cli.getInputStream()));
            awaitTracing(cli, 32);
            assertEquals("called 32", target.ask("call"));
            cli.toHandle().destroy();
            assertTrue(cli.waitFor(60, TimeUnit.SECONDS));
            JsonNode report = Json.parse(out.get());
            assertEquals(32, report.get("methods").size(), report.toString());
            for (JsonNode method : report.get("methods")) {
                assertEquals(1, method.get("calls").asLong(), report.toString());
            }
            assertEquals(32, report.get("classes").size(), report.toString());
            for (JsonNode c : report.get("classes")) {
                assertEquals(c.get("sha256").asText(), c.get("restoredSha256").asText(), report.toString());
            }

            assertEquals("loaded 33", target.ask("load 1"));
            String redefinitions = target.ask("redefinitions");
            Result tooManyClasses = CliRun.run("trace", pid, part + ".m1", "--duration", "1s");
            assertEquals(1, tooManyClasses.exit(), tooManyClasses.toString());
            assertEquals("jvmti-cli: agent: 33 loaded classes match; a session instruments at most 32: name fewer (too_many_classes)",
                    tooManyClasses.err().strip());
            assertNoSession(target.pid());
            assertEquals(redefinitions, target.ask("redefinitions"), "no Part class redefined, not even read");
            assertEquals("called 33", target.ask("call"));

            List<String> stderr = target.stderr().stream()
                    .filter(l -> !l.isBlank() && !DYNAMIC_AGENT_WARNING.matcher(l).find()).toList();
            assertEquals(List.of(), stderr, "the target's stderr");
        }
    }

    private static void assertNoSession(long pid) throws IOException {
        try (RawAgentSocket socket = new RawAgentSocket(pid)) {
            socket.send("{\"v\":7,\"id\":1,\"cmd\":\"trace.stop\"}\n");
            String answer = socket.readLine();
            assertTrue(answer != null && answer.contains("\"not_running\""), answer);
        }
    }

    /** Each percentile within the histogram's error (1/128) of the exact value at its rank, plus 100 us for the probe's own time. */
    static void assertPercentiles(JsonNode report, Map<String, Long> truth) {
        JsonNode method = report.get("methods").get(0);
        assertEquals(CALLS, method.get("calls").asLong(), report.toString());
        assertEquals(CALLS / 50, method.get("errors").asLong(), report.toString());
        assertEquals(truth.get("errors"), method.get("errors").asLong());
        for (String p : List.of("p50", "p90", "p99", "p999", "max")) {
            long exact = truth.get(p);
            long traced = method.get(p).asLong();
            long bound = exact / 128 + 100_000;
            System.out.printf("%s: traced %d ns, target's own %d ns%n", p, traced, exact);
            assertTrue(Math.abs(traced - exact) <= bound, p + ": traced " + traced + " ns, the target's own " + exact + " ns; " + report);
        }
    }

    /** The 3 slowest calls are the target's 3 slowest (within 1% + 100 us), each in place, made from the caller named. */
    private static void assertSlowest(JsonNode report, Map<String, Long> truth, String callerFramePrefix) {
        JsonNode slowest = report.get("slowest");
        assertEquals(3, slowest.size(), report.toString());
        for (int i = 0; i < 3; i++) {
            JsonNode call = slowest.get(i);
            long exact = truth.get("slowest" + i);
            assertTrue(Math.abs(call.get("nanos").asLong() - exact) <= exact / 100 + 100_000, exact + " ns: " + call);
            assertTrue(call.get("frames").get(0).asText().startsWith("dev.jvmticli.targets.LatencyTarget$Orders.place:"), call.toString());
            assertTrue(call.get("frames").get(1).asText().startsWith(callerFramePrefix), call.toString());
        }
    }

    static JsonNode classState(JsonNode report) {
        return classState(report, ORDERS);
    }

    private static JsonNode classState(JsonNode report, String signature) {
        JsonNode classes = report.get("classes");
        assertEquals(1, classes.size(), report.toString());
        assertEquals(signature, classes.get(0).get("name").asText());
        return classes.get(0);
    }

    /** A short session: the SHA-256 of the class's bytes as its start read them (what the session before left). */
    static String shortTraceSha(String pid) {
        Result run = CliRun.run("trace", pid, PLACE, "--duration", "300ms", "--json");
        assertEquals(0, run.exit(), run.toString());
        JsonNode state = classState(Json.parse(run.out()));
        assertEquals(state.get("sha256").asText(), state.get("restoredSha256").asText());
        return state.get("sha256").asText();
    }

    /** place's bytecode made to throw an int: HotSpot's verifier refuses it. */
    private static byte[] unverifiable(byte[] original) {
        ClassReader reader = new ClassReader(original);
        ClassWriter writer = new ClassWriter(reader, ClassWriter.COMPUTE_MAXS);
        reader.accept(new ClassVisitor(Opcodes.ASM9, writer) {
            @Override
            public MethodVisitor visitMethod(int access, String name, String descriptor, String signature, String[] exceptions) {
                MethodVisitor next = super.visitMethod(access, name, descriptor, signature, exceptions);
                if (!name.equals("place")) {
                    return next;
                }
                return new MethodVisitor(Opcodes.ASM9, next) {
                    @Override
                    public void visitCode() {
                        super.visitCode();
                        super.visitInsn(Opcodes.ICONST_0);
                        super.visitInsn(Opcodes.ATHROW);
                    }
                };
            }
        }, 0);
        return writer.toByteArray();
    }

    static Map<String, Long> record(String answer) {
        Map<String, Long> values = new HashMap<>();
        for (String field : answer.split(" ")) {
            String[] kv = field.split("=", 2);
            if (kv[0].equals("all")) {
                String list = kv[1].substring(1, kv[1].length() - 1);
                long[] all = Arrays.stream(list.split(",")).mapToLong(Long::parseLong).sorted().toArray();
                values.put("over50ms", Arrays.stream(all).filter(n -> n >= 50_000_000L).count());
                values.put("over15ms", Arrays.stream(all).filter(n -> n >= 15_000_000L).count());
                values.put("over15msNanos", Arrays.stream(all).filter(n -> n >= 15_000_000L).sum());
                for (int i = 0; i < 3; i++) {
                    values.put("slowest" + i, all[all.length - 1 - i]);
                }
            } else {
                values.put(kv[0], Long.parseLong(kv[1]));
            }
        }
        assertEquals((long) CALLS, values.get("calls"), answer);
        return values;
    }

    static Process startTrace(Jdks.Jdk jdk, String pid, String... options) {
        return startTraceOf(jdk, pid, PLACE, options);
    }

    private static Process startTraceOf(Jdks.Jdk jdk, String pid, String pattern, String... options) {
        String[] args = Stream.concat(Stream.of("trace", pid, pattern), Arrays.stream(options)).toArray(String[]::new);
        return CliProcess.start(List.of(), jdk, CliProcess.jar(), args);
    }

    /** Waits for the CLI's "tracing ..." line on stderr: the probes are in. */
    static void awaitTracing(Process cli) throws IOException {
        awaitTracing(cli, 1);
    }

    private static void awaitTracing(Process cli, int classes) throws IOException {
        BufferedReader err = new BufferedReader(new InputStreamReader(cli.getErrorStream(), StandardCharsets.UTF_8));
        String line = err.readLine();
        assertTrue(line != null && line.startsWith("tracing ") && line.contains(" method(s) in " + classes + " class(es) for "), String.valueOf(line));
        CompletableFuture.runAsync(() -> read(cli.getErrorStream()));
    }

    static void awaitSessionEnded(long pid) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        String answer = "";
        while (System.nanoTime() < deadline) {
            try (RawAgentSocket socket = new RawAgentSocket(pid)) {
                socket.send("{\"v\":7,\"id\":1,\"cmd\":\"trace.stop\"}\n");
                answer = socket.readLine();
                if (answer != null && answer.contains("\"not_running\"")) {
                    return;
                }
            } catch (IOException notYet) {
                answer = notYet.toString();
            }
            Thread.sleep(50);
        }
        throw new AssertionError("the trace session did not end within 30 s: " + answer);
    }

    static String read(InputStream in) {
        try {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
