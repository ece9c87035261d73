package dev.jvmticli.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.jvmticli.client.AgentClient;
import dev.jvmticli.client.AgentError;
import dev.jvmticli.client.TraceInstallRequest;
import dev.jvmticli.client.TraceSession;
import dev.jvmticli.client.TraceStartRequest;
import dev.jvmticli.client.TraceStarted;
import dev.jvmticli.instrument.ProbeClass;
import dev.jvmticli.targets.LatencyTarget;
import dev.jvmticli.testing.AgentProbe;
import dev.jvmticli.testing.CliProcess;
import dev.jvmticli.testing.CliRun;
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
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
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
            JsonNode slowest = report.get("slowest");
            assertEquals(3, slowest.size(), report.toString());
            for (int i = 0; i < 3; i++) {
                JsonNode call = slowest.get(i);
                long exact = truth.get("slowest" + i);
                assertTrue(Math.abs(call.get("nanos").asLong() - exact) <= exact / 100 + 100_000, exact + " ns: " + call);
                assertTrue(call.get("frames").get(0).asText().startsWith("dev.jvmticli.targets.LatencyTarget$Orders.place:"), call.toString());
                assertTrue(call.get("frames").get(1).asText().startsWith("dev.jvmticli.targets.LatencyTarget.checkout:"), call.toString());
            }
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
            assertTrue(second.err().contains("tracing is already running for another client") && second.err().contains("(busy)"),
                    second.toString());
            first.destroyForcibly();
            awaitSessionEnded(target.pid());

            // bytes the JVM does not verify: refused, nothing changed, the session over
            try (AgentClient client = AgentProbe.open(target.pid())) {
                TraceStarted started = client.call(new TraceStartRequest("dev.jvmticli.targets.LatencyTarget$Orders", ProbeClass.bytes()),
                        TraceStarted.class);
                assertEquals(original, started.classes().get(0).sha256());
                TraceSession.send(client, 0, unverifiable(started.classes().get(0).bytes()));
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
     * The JDK's classes only when named without a wildcard: {@code java.util.Rand*} finds nothing and
     * says why; {@code java.util.Random.nextDouble} (java.base, a named module, made to read the
     * probe's) counts exactly the calls checkout made, and Random still answers after.
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
            // Random's bytes are not compared: JDK 17 reconstitutes a class of its CDS archive at the first read in
            // other bytes than it hands after a retransformation (same class, other encoding; docs/trace.md)
            assertEquals("Ljava/util/Random;", report.get("classes").get(0).get("name").asText());
            assertEquals("ran 1", target.ask("run 1"));
            List<String> stderr = target.stderr().stream().filter(l -> !l.isBlank() && !DYNAMIC_AGENT_WARNING.matcher(l).find()).toList();
            assertEquals(List.of(), stderr, "the target's stderr");
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

    static JsonNode classState(JsonNode report) {
        JsonNode classes = report.get("classes");
        assertEquals(1, classes.size(), report.toString());
        assertEquals(ORDERS, classes.get(0).get("name").asText());
        return classes.get(0);
    }

    /** A short session: the SHA-256 of the class's bytes as its start read them (what the session before left). */
    private static String shortTraceSha(String pid) {
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

    private static Process startTrace(Jdks.Jdk jdk, String pid, String... options) {
        return startTraceOf(jdk, pid, PLACE, options);
    }

    private static Process startTraceOf(Jdks.Jdk jdk, String pid, String pattern, String... options) {
        String[] args = Stream.concat(Stream.of("trace", pid, pattern), Arrays.stream(options)).toArray(String[]::new);
        return CliProcess.start(List.of(), jdk, CliProcess.jar(), args);
    }

    /** Waits for the CLI's "tracing ..." line on stderr: the probes are in. */
    static void awaitTracing(Process cli) throws IOException {
        BufferedReader err = new BufferedReader(new InputStreamReader(cli.getErrorStream(), StandardCharsets.UTF_8));
        String line = err.readLine();
        assertTrue(line != null && line.startsWith("tracing ") && line.contains(" method(s) in 1 class(es) for "), String.valueOf(line));
        CompletableFuture.runAsync(() -> read(cli.getErrorStream()));
    }

    private static void awaitSessionEnded(long pid) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        String answer = "";
        while (System.nanoTime() < deadline) {
            try (RawAgentSocket socket = new RawAgentSocket(pid)) {
                socket.send("{\"v\":4,\"id\":1,\"cmd\":\"trace.stop\"}\n");
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
