package dev.jvmticli.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.jvmticli.client.AgentClient;
import dev.jvmticli.client.ClassBytesRequest;
import dev.jvmticli.client.ExceptionsReport;
import dev.jvmticli.client.ExceptionsSession;
import dev.jvmticli.client.ExceptionsStartRequest;
import dev.jvmticli.client.TraceInstallRequest;
import dev.jvmticli.client.TraceStarted;
import dev.jvmticli.instrument.ExceptionProbes;
import dev.jvmticli.instrument.ProbeClass;
import dev.jvmticli.targets.ExceptionsTarget;
import dev.jvmticli.targets.RethrowsTarget;
import dev.jvmticli.testing.AgentProbe;
import dev.jvmticli.testing.CliProcess;
import dev.jvmticli.testing.CliRun;
import dev.jvmticli.testing.CliRun.Result;
import dev.jvmticli.testing.DebianRoots;
import dev.jvmticli.testing.Jdks;
import dev.jvmticli.testing.Json;
import dev.jvmticli.testing.RawAgentSocket;
import dev.jvmticli.testing.TargetJdks.TargetJdk;
import dev.jvmticli.testing.TargetJvm;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code exceptions} against a target that counts the exceptions it makes ({@link ExceptionsTarget}):
 * each class's count within 5% of the target's, the site of each the target's method that made it
 * (through the JDK's Integer.parseInt for one, through the target's own constructor chain for
 * another), the messages sampled; java.lang.Throwable's bytes (SHA-256) the same after the session
 * and after a SIGKILLed CLI; a second CLI told busy; nothing on the target's stderr.
 */
class ExceptionsIT {
    private static final String TARGET = "dev.jvmticli.targets.ExceptionsTarget$";
    static final java.util.regex.Pattern DYNAMIC_AGENT_WARNING = java.util.regex.Pattern.compile(
            "^WARNING: (A JVM TI agent has been loaded dynamically|If a serviceability tool is in use|Dynamic loading of agents)");

    static Stream<Jdks.Jdk> jdks() {
        return Jdks.stream();
    }

    @ParameterizedTest
    @MethodSource("jdks")
    void countsSitesAndMessagesMatchTheTargetsOwnAndThrowableComesBack(Jdks.Jdk jdk) throws Exception {
        try (TargetJvm target = TargetJvm.start(jdk, ExceptionsTarget.class)) {
            String pid = Long.toString(target.pid());
            assertTrue(target.ask("run 5").startsWith("ran "));

            Process cli = startExceptions(jdk, pid, "--duration", "120s", "--json", "--top", "10");
            CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> read(cli.getInputStream()));
            awaitCounting(cli);
            Map<String, Long> made = made(target.ask("run 2000"));
            cli.toHandle().destroy(); // SIGTERM: the window ends early, the report still comes
            assertTrue(cli.waitFor(60, TimeUnit.SECONDS));
            JsonNode report = Json.parse(out.get());

            String original = checkAgainstTheTargetsOwnCounts(report, made);
            assertWithoutThrowEvents(report, "needs start-up mode");

            // the CLI killed: the agent puts Throwable back when the connection closes
            Process killed = startExceptions(jdk, pid, "--duration", "120s");
            awaitCounting(killed);
            killed.destroyForcibly();
            awaitSessionEnded(target.pid());
            assertTrue(target.ask("run 10").startsWith("ran ise=40 "));
            assertEquals(original, shortSessionSha(pid));

            // a second CLI is told the JVM is instrumented already
            Process first = startExceptions(jdk, pid, "--duration", "120s");
            awaitCounting(first);
            Result second = CliRun.run("exceptions", pid, "--duration", "1s");
            assertEquals(1, second.exit(), second.toString());
            assertTrue(second.err().contains("instrumentation (trace or exceptions) is already running for another client") && second.err().contains("(busy)"), second.toString());
            first.destroyForcibly();
            awaitSessionEnded(target.pid());
            assertEquals(original, shortSessionSha(pid));

            // JDK 21+ warns once of the dynamically loaded agent (JEP 451): that is the attach, not exceptions
            List<String> stderr = target.stderr().stream().filter(l -> !l.isBlank() && !DYNAMIC_AGENT_WARNING.matcher(l).find()).toList();
            assertEquals(List.of(), stderr, "the target's stderr");
        }
    }

    /**
     * Started with {@code -agentpath:...=v=7,exception-events}, the agent has JVMTI's Exception and ExceptionCatch events on for the
     * session: per class how many were thrown, caught and uncaught, exactly as many as the target counted; each caught where the
     * target catches it, and the {@link ExceptionsTarget.Escaped} that ended the target's escaper threads (platform, and on JDK 21+
     * virtual ones too) uncaught, thrown at Escapes.leave. On every JDK 11 to 25, Debian's 11 and 21 in their roots.
     */
    @ParameterizedTest
    @MethodSource("dev.jvmticli.testing.TargetJdks#every")
    void startUpModeSaysWhichWereCaughtWhereAndWhichEndedTheirThread(TargetJdk jdk) throws Exception {
        try (TargetJvm target = jdk.startWithAgent(ExceptionsTarget.class, "v=7,exception-events")) {
            String pid = Long.toString(target.pid());
            assertTrue(StartupModeIT.hello(target).capabilities().contains("can_generate_exception_events"));
            Process cli = startExceptions(jdk.cliJdk(), pid, "--duration", "120s", "--json", "--top", "10");
            CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> read(cli.getInputStream()));
            awaitCounting(cli);
            Map<String, Long> made = made(target.ask("run 2000"));
            assertEquals("escaped 7", target.ask("escape 7"));
            // a virtual thread's end: VirtualThread.run catches it for the handler, as the JVM does for a platform thread
            long escapedVirtual = jdk.feature() >= 21 ? 4 : 0;
            if (escapedVirtual > 0) {
                assertEquals("escaped 4", target.ask("escape-virtual 4"));
            }
            cli.toHandle().destroy();
            assertTrue(cli.waitFor(60, TimeUnit.SECONDS));
            JsonNode report = Json.parse(out.get());

            checkAgainstTheTargetsOwnCounts(report, made);
            assertTrue(report.get("withoutThrowEvents").isNull(), report.toString());
            String ise = "java.lang.IllegalStateException";
            String declined = TARGET + "PaymentDeclined";
            String nfe = "java.lang.NumberFormatException";
            String escaped = TARGET + "Escaped";
            assertThrownCaughtUncaught(report, ise, made.get("ise"), made.get("ise"), 0);
            assertThrownCaughtUncaught(report, declined, made.get("declined"), made.get("declined"), 0);
            assertThrownCaughtUncaught(report, nfe, made.get("nfe"), made.get("nfe"), 0);
            assertThrownCaughtUncaught(report, escaped, 7 + escapedVirtual, 0, 7 + escapedVirtual);
            assertEquals(Map.of("dev.jvmticli.targets.ExceptionsTarget.run", made.get("ise")), catches(report, ise, true));
            assertEquals(Map.of(TARGET + "Payments.declined", made.get("declined")), catches(report, declined, true));
            assertEquals(Map.of("dev.jvmticli.targets.ExceptionsTarget.run", made.get("nfe")), catches(report, nfe, true));
            assertEquals(Map.of(TARGET + "Escapes.leave", 7 + escapedVirtual), catches(report, escaped, false));
            assertEquals(Map.of(), catches(report, escaped, true));

            // the CLI killed while the events fire: the session ends (events off, tables freed) and the target runs on
            Process killed = startExceptions(jdk.cliJdk(), pid, "--duration", "120s");
            awaitCounting(killed);
            CompletableFuture<String> running = CompletableFuture.supplyAsync(() -> target.ask("run 500"));
            Thread.sleep(200);
            killed.destroyForcibly();
            awaitSessionEnded(target.pid());
            assertEquals("ran ise=2000 declined=500 nfe=100", running.get(60, TimeUnit.SECONDS));
            assertEquals(List.of(), target.stderr().stream().filter(l -> !l.isBlank()).toList(), "the target's stderr");
        }
    }

    /**
     * In start-up mode each exception object counts once, at its first throw, by where it went in the end, however often JVMTI
     * sees it thrown on its way (a finally block, a catch that throws it on, try-with-resources, synchronized blocks, a second
     * thread): {@link RethrowsTarget}'s four classes thrown and caught as often as the target caught them, each caught in
     * RethrowsTarget.run only, and its {@link RethrowsTarget.Lost}s uncaught at their first throw, Escapes.leave, never caught.
     */
    @ParameterizedTest
    @MethodSource("jdks")
    void startUpModeCountsARethrownExceptionOnceByWhereItEnded(Jdks.Jdk jdk) throws Exception {
        String library = CliRun.run("agent-path").out().strip();
        try (TargetJvm target = TargetJvm.start(jdk, RethrowsTarget.class, List.of("-agentpath:" + library + "=v=7,exception-events"))) {
            String pid = Long.toString(target.pid());
            assertEquals("ran refused=5 suspicious=5 sealed=5 handed=5", target.ask("run 5")); // the lambdas linked before the window
            Process cli = startExceptions(jdk, pid, "--duration", "120s", "--json", "--top", "20");
            CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> read(cli.getInputStream()));
            awaitCounting(cli);
            assertEquals("ran refused=300 suspicious=300 sealed=300 handed=300", target.ask("run 300"));
            assertEquals("escaped 6", target.ask("escape 6"));
            cli.toHandle().destroy();
            assertTrue(cli.waitFor(60, TimeUnit.SECONDS));
            JsonNode report = Json.parse(out.get());

            String rethrows = "dev.jvmticli.targets.RethrowsTarget";
            for (String caught : List.of("Refused", "Suspicious", "Sealed", "Handed")) {
                String exception = rethrows + "$" + caught;
                assertCount(report, exception, 300);
                assertThrownCaughtUncaught(report, exception, 300, 300, 0);
                assertEquals(Map.of(rethrows + ".run", 300L), catches(report, exception, true), exception + ": " + report.get("catches"));
                assertEquals(Map.of(), catches(report, exception, false), exception + ": " + report.get("catches"));
            }
            String lost = rethrows + "$Lost";
            assertThrownCaughtUncaught(report, lost, 6, 0, 6);
            assertEquals(Map.of(rethrows + "$Escapes.leave", 6L), catches(report, lost, false), report.get("catches").toString());
            assertEquals(Map.of(), catches(report, lost, true), report.get("catches").toString());
            assertEquals(0, report.get("droppedCatches").asLong(), report.toString());
            assertEquals(List.of(), target.stderr().stream().filter(l -> !l.isBlank()).toList(), "the target's stderr");
        }
    }

    static void assertThrownCaughtUncaught(JsonNode report, String exception, long thrown, long caught, long uncaught) {
        JsonNode row = row(report, exception);
        assertEquals(List.of(thrown, caught, uncaught),
                List.of(row.get("thrown").asLong(), row.get("caught").asLong(), row.get("uncaught").asLong()), exception + ": " + report);
    }

    /** The methods (without their lines) that caught the class's exceptions, or (caught false) threw those nothing caught, with their counts. */
    static Map<String, Long> catches(JsonNode report, String exception, boolean caught) {
        Map<String, Long> at = new HashMap<>();
        for (JsonNode c : report.get("catches")) {
            if (c.get("exception").asText().equals(exception) && c.get("caught").asBoolean() == caught) {
                at.merge(c.get("at").asText().replaceFirst(":\\d+$", ""), c.get("count").asLong(), Long::sum);
            }
        }
        return at;
    }

    /** A report without the JVMTI events: null counts, never a guess, and the reason. */
    static void assertWithoutThrowEvents(JsonNode report, String reason) {
        assertTrue(report.get("catches").isNull(), report.toString());
        assertTrue(report.get("withoutThrowEvents").asText().contains(reason), report.toString());
        for (JsonNode row : report.get("exceptions")) {
            assertTrue(row.get("thrown").isNull() && row.get("caught").isNull() && row.get("uncaught").isNull(), row.toString());
        }
    }

    /**
     * The report's window is the time the probe was in, from the install to the stop: a client slow
     * between the start and the install (a CLI rewriting Throwable on a loaded machine) makes it no
     * longer, so that a rate is a count over the time it was counted. Here the client waits 2 s there.
     */
    @Test
    void theWindowIsTheTimeTheProbeWasIn() throws Exception {
        try (TargetJvm target = TargetJvm.start(Jdks.current(), ExceptionsTarget.class)) {
            assertEquals(0, CliRun.run("threads", Long.toString(target.pid())).exit()); // the agent is loaded
            assertWindowIsTheTimeTheProbeWasIn(target);
        }
    }

    private static void assertWindowIsTheTimeTheProbeWasIn(TargetJvm target) throws Exception {
        try (AgentClient client = AgentProbe.open(target.pid())) {
            TraceStarted started = client.call(new ExceptionsStartRequest(ProbeClass.bytes()), TraceStarted.class);
            Thread.sleep(2000);
            ExceptionProbes.Rewritten rewritten = ExceptionProbes.rewrite(started.classes().get(0).bytes(),
                    started.generation() << started.idBits());
            ClassBytesRequest.send(client, "trace", 0, rewritten.bytes());
            long installing = System.nanoTime();
            client.call(new TraceInstallRequest(rewritten.constructors(), 0, 1), Map.class);
            Map<String, Long> made = made(target.ask("run 2000"));
            ExceptionsReport report = ExceptionsSession.stop(client);
            long stopped = System.nanoTime();
            assertTrue(report.durationNanos() <= stopped - installing, "a window of " + report.durationNanos() / 1_000_000
                    + " ms, the probe in for at most " + (stopped - installing) / 1_000_000 + " ms");
            long counted = report.exceptions().stream().filter(c -> c.name().equals("Ljava/lang/IllegalStateException;"))
                    .mapToLong(ExceptionsReport.ExceptionClass::count).sum();
            assertEquals(made.get("ise").longValue(), counted, report.toString());
        }
    }

    /**
     * The same ticks on 8 virtual threads at once (the newest JDK, 21 or later): each class counted
     * exactly as the target counted it, its site the target's method, and each top site's stack the
     * virtual thread's own (from the target's tick loop through VirtualThread.run down to its
     * continuation's entry, no carrier frame).
     */
    @Test
    void exceptionsOfVirtualThreadsAreCountedExactlyWithTheirOwnStacks() throws Exception {
        Jdks.Jdk jdk = Jdks.atLeast(21).orElseThrow(() -> new AssertionError("the build needs a JDK 21 or later for virtual threads"));
        try (TargetJvm target = TargetJvm.start(jdk, ExceptionsTarget.class)) {
            assertVirtualThreadExceptions(target, jdk);
        }
    }

    /** The same on Debian 13's OpenJDK 21, in its root and a mount namespace of its own (.ci/roots; DebianRootsIT). */
    @Test
    void exceptionsOfVirtualThreadsOnOpenJdk21InItsOwnRoot() throws Exception {
        DebianRoots.RootJdk jdk = DebianRoots.jdks().filter(j -> j.feature() == 21).findFirst()
                .orElseThrow(() -> new AssertionError("no root with JDK 21"));
        Path library = Path.of(CliRun.run("agent-path").out().strip());
        Path classes = DebianRoots.classes(jdk.root(), library, ExceptionsTarget.class);
        try (TargetJvm target = TargetJvm.startWrapped(DebianRoots.ownMountNamespace(jdk.root()), classes, jdk.inside(),
                ExceptionsTarget.class, List.of())) {
            assertVirtualThreadExceptions(target, Jdks.current());
        }
    }

    private static void assertVirtualThreadExceptions(TargetJvm target, Jdks.Jdk cliJdk) throws Exception {
        String pid = Long.toString(target.pid());
        assertTrue(target.ask("vrun 5 2").startsWith("ran "));
        Process cli = startExceptions(cliJdk, pid, "--duration", "120s", "--json", "--top", "10");
        CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> read(cli.getInputStream()));
        awaitCounting(cli);
        Map<String, Long> made = made(target.ask("vrun 2000 8"));
        cli.toHandle().destroy();
        assertTrue(cli.waitFor(60, TimeUnit.SECONDS));
        JsonNode report = Json.parse(out.get());
        checkAgainstTheTargetsOwnCounts(report, made);
        Map<String, String> classes = Map.of("java.lang.IllegalStateException", "ise",
                "dev.jvmticli.targets.ExceptionsTarget$PaymentDeclined", "declined", "java.lang.NumberFormatException", "nfe");
        classes.forEach((exception, key) -> {
            assertEquals(made.get(key).longValue(), row(report, exception).get("count").asLong(), exception + ": " + report);
            JsonNode site = topSite(report, exception);
            List<String> frames = new ArrayList<>();
            site.get("frames").forEach(f -> frames.add(f.asText()));
            assertTrue(frames.stream().anyMatch(f -> f.startsWith("dev.jvmticli.targets.ExceptionsTarget.run:")), exception + ": " + frames);
            assertTrue(frames.stream().anyMatch(f -> f.startsWith("dev.jvmticli.targets.ExceptionsTarget.lambda$runVirtually$")),
                    exception + ": " + frames);
            assertTrue(frames.stream().anyMatch(f -> f.startsWith("java.lang.VirtualThread.run:")), exception + ": " + frames);
            // the virtual thread's stack ends where its continuation was entered; the carrier's frames are below
            assertTrue(frames.get(frames.size() - 1).startsWith("jdk.internal.vm.Continuation.enter"), exception + ": " + frames);
            assertTrue(frames.stream().noneMatch(f -> f.contains("ForkJoin")), exception + ": a carrier's frame in " + frames);
        });
        List<String> stderr = target.stderr().stream().filter(l -> !l.isBlank() && !DYNAMIC_AGENT_WARNING.matcher(l).find()).toList();
        assertEquals(List.of(), stderr, "the target's stderr");
    }

    /** The site of the exception class that the report puts first (the most made). */
    private static JsonNode topSite(JsonNode report, String exception) {
        for (JsonNode site : report.get("sites")) {
            if (site.get("exception").asText().equals(exception)) {
                return site;
            }
        }
        throw new AssertionError(exception + ": no site among the top sites: " + report);
    }

    /**
     * HotSpot verifies no class of the boot loader by default, Throwable's new bytes included; under
     * BytecodeVerificationLocal it does, and takes them. It then also keeps Throwable's stack maps, so
     * every read of Throwable, the first one's too, has the same bytes.
     */
    @ParameterizedTest
    @MethodSource("jdks")
    void theVerifierTakesTheProbedThrowable(Jdks.Jdk jdk) throws Exception {
        try (TargetJvm target = TargetJvm.start(jdk, ExceptionsTarget.class,
                List.of("-XX:+UnlockDiagnosticVMOptions", "-XX:+BytecodeVerificationLocal"))) {
            String pid = Long.toString(target.pid());
            Process cli = startExceptions(jdk, pid, "--duration", "120s", "--json");
            CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> read(cli.getInputStream()));
            awaitCounting(cli);
            assertEquals("ran ise=400 declined=100 nfe=20", target.ask("run 100"));
            cli.toHandle().destroy();
            assertTrue(cli.waitFor(60, TimeUnit.SECONDS));
            JsonNode report = Json.parse(out.get());
            assertCount(report, "java.lang.IllegalStateException", 400);
            JsonNode throwable = report.get("classes").get(0);
            assertEquals(throwable.get("sha256").asText(), throwable.get("replacedSha256").asText(), report.toString());
            assertEquals(throwable.get("sha256").asText(), throwable.get("restoredSha256").asText(), report.toString());
            List<String> stderr = target.stderr().stream().filter(l -> !l.isBlank() && !DYNAMIC_AGENT_WARNING.matcher(l).find()).toList();
            assertEquals(List.of(), stderr, "the target's stderr");
        }
    }

    /**
     * Each class's count within 5% of what the target made, its site and messages, and Throwable
     * put back with the bytes it had when the probe went in: those bytes' SHA-256.
     */
    static String checkAgainstTheTargetsOwnCounts(JsonNode report, Map<String, Long> made) {
        assertCount(report, "java.lang.IllegalStateException", made.get("ise"));
        assertCount(report, "dev.jvmticli.targets.ExceptionsTarget$PaymentDeclined", made.get("declined"));
        assertCount(report, "java.lang.NumberFormatException", made.get("nfe"));
        assertEquals(TARGET + "Stock.reserve", site(report, "java.lang.IllegalStateException"), report.toString());
        assertEquals(TARGET + "Payments.charge", site(report, "dev.jvmticli.targets.ExceptionsTarget$PaymentDeclined"), report.toString());
        assertEquals(TARGET + "Orders.quantity", site(report, "java.lang.NumberFormatException"), report.toString());
        assertTrue(origin(report, "java.lang.NumberFormatException").startsWith("java.lang.NumberFormatException.forInputString"),
                report.toString());
        assertMessages(report, "java.lang.IllegalStateException", "stock ");
        assertMessages(report, "dev.jvmticli.targets.ExceptionsTarget$PaymentDeclined", "declined card ");
        assertMessages(report, "java.lang.NumberFormatException", "For input string: \"qty");
        JsonNode throwable = report.get("classes").get(0);
        assertEquals("Ljava/lang/Throwable;", throwable.get("name").asText());
        // the bytes Throwable had when the probe went in (on JDK 17 not the first read's: see ClassState)
        String original = throwable.get("replacedSha256").asText();
        assertEquals(original, throwable.get("restoredSha256").asText(), report.toString());
        return original;
    }

    static JsonNode row(JsonNode report, String exception) {
        for (JsonNode row : report.get("exceptions")) {
            if (row.get("exception").asText().equals(exception)) {
                return row;
            }
        }
        throw new AssertionError(exception + " not reported: " + report);
    }

    static void assertCount(JsonNode report, String exception, long truth) {
        long counted = row(report, exception).get("count").asLong();
        assertTrue(Math.abs(counted - truth) <= truth / 20, exception + ": counted " + counted + ", the target made " + truth);
    }

    /** The class's site without its line: {@code pkg.Class.method}. */
    static String site(JsonNode report, String exception) {
        JsonNode site = row(report, exception).get("site");
        assertNotNull(site, report.toString());
        return site.asText().replaceFirst(":\\d+$", "");
    }

    static String origin(JsonNode report, String exception) {
        return row(report, exception).get("origin").asText();
    }

    private static void assertMessages(JsonNode report, String exception, String prefix) {
        JsonNode messages = row(report, exception).get("messages");
        assertEquals(3, messages.size(), report.toString());
        List<String> seen = new ArrayList<>();
        for (JsonNode message : messages) {
            assertTrue(message.asText().startsWith(prefix), message.toString());
            seen.add(message.asText());
        }
        assertEquals(3, seen.stream().distinct().count(), seen.toString());
    }

    /** A short session: Throwable's SHA-256 as its start read it (what the session before left), which it also puts back. */
    private static String shortSessionSha(String pid) {
        return shortSessionSha(CliRun.run("exceptions", pid, "--duration", "300ms", "--json"));
    }

    static String shortSessionSha(Result run) {
        assertEquals(0, run.exit(), run.toString());
        JsonNode throwable = Json.parse(run.out()).get("classes").get(0);
        assertEquals(throwable.get("sha256").asText(), throwable.get("replacedSha256").asText(), run.out());
        assertEquals(throwable.get("sha256").asText(), throwable.get("restoredSha256").asText(), run.out());
        return throwable.get("sha256").asText();
    }

    static Map<String, Long> made(String answer) {
        assertTrue(answer.startsWith("ran "), answer);
        Map<String, Long> made = new HashMap<>();
        for (String field : answer.substring(4).split(" ")) {
            String[] kv = field.split("=", 2);
            made.put(kv[0], Long.parseLong(kv[1]));
        }
        assertEquals(Arrays.asList(8000L, 2000L, 400L), Arrays.asList(made.get("ise"), made.get("declined"), made.get("nfe")), answer);
        return made;
    }

    private static Process startExceptions(Jdks.Jdk jdk, String pid, String... options) {
        String[] args = Stream.concat(Stream.of("exceptions", pid), Arrays.stream(options)).toArray(String[]::new);
        return CliProcess.start(List.of(), jdk, CliProcess.jar(), args);
    }

    /** Waits for the CLI's "counting exceptions ..." line on stderr: the probe is in. */
    static void awaitCounting(Process cli) throws IOException {
        BufferedReader err = new BufferedReader(new InputStreamReader(cli.getErrorStream(), StandardCharsets.UTF_8));
        String line = err.readLine();
        assertTrue(line != null && line.startsWith("counting exceptions for "), String.valueOf(line));
        CompletableFuture.runAsync(() -> read(cli.getErrorStream()));
    }

    private static void awaitSessionEnded(long pid) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        String answer = "";
        while (System.nanoTime() < deadline) {
            try (RawAgentSocket socket = new RawAgentSocket(pid)) {
                socket.send("{\"v\":7,\"id\":1,\"cmd\":\"exceptions.stop\"}\n");
                answer = socket.readLine();
                if (answer != null && answer.contains("\"not_running\"")) {
                    return;
                }
            } catch (IOException notYet) {
                answer = notYet.toString();
            }
            Thread.sleep(50);
        }
        throw new AssertionError("the exceptions session did not end within 30 s: " + answer);
    }

    static String read(InputStream in) {
        try {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
