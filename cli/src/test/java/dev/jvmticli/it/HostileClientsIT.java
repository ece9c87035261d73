package dev.jvmticli.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.jvmticli.client.AgentClient;
import dev.jvmticli.targets.CounterTarget;
import dev.jvmticli.testing.CliRun;
import dev.jvmticli.testing.CliRun.Result;
import dev.jvmticli.testing.Jdks;
import dev.jvmticli.testing.Json;
import dev.jvmticli.testing.Proc;
import dev.jvmticli.testing.RawAgentSocket;
import dev.jvmticli.testing.TargetJvm;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Clients that misbehave every way a socket allows, against a live target: its own threads keep
 * running, every well-formed request afterwards is answered, and its descriptors and memory come
 * back to where they were.
 */
class HostileClientsIT {
    private static final String HELLO = "{\"v\":7,\"id\":424242,\"cmd\":\"hello\"}\n";

    static Stream<Jdks.Jdk> jdks() {
        return Jdks.stream();
    }

    @ParameterizedTest
    @MethodSource("jdks")
    void theTargetAndTheAgentSurviveHostileClients(Jdks.Jdk jdk) throws Exception {
        try (TargetJvm target = TargetJvm.start(jdk, CounterTarget.class, List.of("-Xmx64m"))) {
            long pid = target.pid();
            for (int i = 0; i < 5; i++) {
                assertEquals(0, CliRun.run("threads", Long.toString(pid)).exit());
            }
            int fdsBefore = Proc.fds(pid).size();
            long rssBefore = Proc.rssKib(pid);
            long countBefore = Long.parseLong(target.ask("count"));

            randomBytes(pid);
            oversizedAndAbsurdRequests(pid);
            truncatedRequests(pid);
            List<RawAgentSocket> silent = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                silent.add(new RawAgentSocket(pid)); // connect and send nothing, during what follows
            }
            manyClientsAtOnce(pid, 200);
            for (RawAgentSocket s : silent) {
                s.close();
            }
            disconnectMidAnswer(pid);

            long countAfter = Long.parseLong(target.ask("count"));
            assertTrue(countAfter > countBefore, "the target's counter thread kept running: " + countBefore + " -> " + countAfter);
            Result threads = CliRun.run("threads", Long.toString(pid), "--json");
            assertEquals(0, threads.exit(), threads.toString());
            assertEquals("counter", Json.find(Json.parse(threads.out()).path("threads"), "name", "counter").path("name").asText());

            awaitFdsAtMost(pid, fdsBefore);
            long rssAfter = Proc.rssKib(pid);
            System.out.printf("%s: counter %d -> %d, fds %d -> %d, RSS %d KiB -> %d KiB%n",
                    jdk, countBefore, countAfter, fdsBefore, Proc.fds(pid).size(), rssBefore, rssAfter);
            assertTrue(rssAfter - rssBefore < 16 * 1024, "RSS grew by " + (rssAfter - rssBefore) + " KiB");
        }
    }

    /** Random bytes, each burst followed by a newline and a hello: every line gets an answer, then hello is answered. */
    private static void randomBytes(long pid) throws IOException {
        Random random = new Random(6);
        for (int i = 0; i < 30; i++) {
            byte[] junk = new byte[1 + random.nextInt(8192)];
            random.nextBytes(junk);
            try (RawAgentSocket raw = new RawAgentSocket(pid)) {
                raw.send(junk);
                raw.send("\n" + HELLO);
                assertHelloAnsweredAfterErrors(raw);
            }
        }
    }

    private static void oversizedAndAbsurdRequests(long pid) throws IOException {
        List<String> absurd = List.of(
                "{\"v\":7,\"id\":1,\"cmd\":\"threads\",\"ids\":[" + "1,".repeat(9000) + "1]}", // more items than allowed
                "[".repeat(30_000),                                                            // deep nesting
                "{\"v\":7,\"id\":" + "9".repeat(5000) + "}",                                   // a number of 5000 digits
                "{\"v\":7,\"id\":1,\"cmd\":\"" + "\\ud83d".repeat(1000) + "\"}",                // lone surrogates
                "{\"v\":7,\"id\":1,\"cmd\":\"hello\",\"x\":\"" + "A".repeat(60_000) + "\"}");    // large but legal
        try (RawAgentSocket raw = new RawAgentSocket(pid)) {
            for (String request : absurd) {
                raw.send(request + "\n");
                JsonNode answer = Json.parse(raw.readLine());
                assertTrue(answer.has("ok"), answer.toString());
            }
            raw.send(HELLO);
            assertHelloAnsweredAfterErrors(raw);
        }
        // a frame that never ends: 8 MiB without a newline; the agent answers and hangs up at 64 KiB
        try (RawAgentSocket raw = new RawAgentSocket(pid)) {
            try {
                raw.send(new byte[8 << 20]);
            } catch (IOException hungUp) {
                // expected: the agent closed after its error answer
            }
        }
    }

    private static void truncatedRequests(long pid) throws IOException {
        for (int i = 0; i < 20; i++) {
            try (RawAgentSocket raw = new RawAgentSocket(pid)) {
                raw.send(HELLO.substring(0, 1 + i));
            }
        }
    }

    /** n clients connect at the same moment; each says hello and lists threads. */
    private static void manyClientsAtOnce(long pid, int n) throws Exception {
        Path socket = RawAgentSocket.socketPath(pid);
        ExecutorService pool = Executors.newFixedThreadPool(n);
        CountDownLatch go = new CountDownLatch(1);
        try {
            List<Future<Integer>> answers = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                answers.add(pool.submit(() -> {
                    go.await();
                    try (AgentClient client = AgentClient.connect(socket, Duration.ofSeconds(60), "target")) {
                        assertEquals(pid, client.hello().pid());
                        return client.threads().threads().size();
                    }
                }));
            }
            go.countDown();
            for (Future<Integer> answer : answers) {
                assertTrue(answer.get(120, TimeUnit.SECONDS) > 0);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    /** Clients that ask for a lot and hang up after a few bytes of it. */
    private static void disconnectMidAnswer(long pid) throws IOException {
        String many = "{\"v\":7,\"id\":1,\"cmd\":\"threads\"}\n".repeat(200);
        for (int i = 0; i < 20; i++) {
            try (RawAgentSocket raw = new RawAgentSocket(pid)) {
                raw.send(many);
                raw.readLine();
            }
        }
    }

    private static void assertHelloAnsweredAfterErrors(RawAgentSocket raw) throws IOException {
        String line;
        while ((line = raw.readLine()) != null) {
            JsonNode answer = Json.parse(line);
            if (answer.path("id").asLong() == 424242) {
                assertTrue(answer.path("ok").asBoolean(), line);
                return;
            }
            assertEquals("bad_request", answer.path("error").path("code").asText(), line);
        }
        throw new AssertionError("the connection closed before hello was answered");
    }

    private static void awaitFdsAtMost(long pid, int limit) throws InterruptedException {
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (Proc.fds(pid).size() > limit && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertTrue(Proc.fds(pid).size() <= limit, "descriptors back to " + limit + ": " + Proc.fds(pid));
    }

    /** `threads` while the target starts and ends threads as fast as it can. */
    @ParameterizedTest
    @MethodSource("jdks")
    void threadsRacesWithThreadsThatStartAndDie(Jdks.Jdk jdk) {
        try (TargetJvm target = TargetJvm.start(jdk, CounterTarget.class, List.of("-Xmx64m"))) {
            String pid = Long.toString(target.pid());
            assertEquals(0, CliRun.run("threads", pid).exit());
            long countBefore = Long.parseLong(target.ask("count"));
            target.ask("churn on");
            int sawShortLived = 0;
            for (int i = 0; i < 30; i++) {
                Result result = CliRun.run("threads", pid, "--json");
                assertEquals(0, result.exit(), result.toString());
                for (JsonNode thread : Json.parse(result.out()).path("threads")) {
                    if (thread.path("name").asText().startsWith("short-lived-")) {
                        sawShortLived++;
                    }
                }
            }
            long started = Long.parseLong(target.ask("churn off"));
            assertTrue(started > 30, "the target started " + started + " threads");
            System.out.printf("%s: %d threads started and ended during 30 `threads` runs, %d seen mid-life%n", jdk, started, sawShortLived);
            assertTrue(Long.parseLong(target.ask("count")) > countBefore);
            assertEquals(0, CliRun.run("threads", pid).exit());
        }
    }

    /**
     * Commands that name threads, run while the named threads end: a thread that died between the
     * CLI's choosing it and the agent's answer is simply absent, never an error or a crash.
     */
    @ParameterizedTest
    @MethodSource("jdks")
    void requestsNamingThreadsThatHaveJustDiedAreAnswered(Jdks.Jdk jdk) throws Exception {
        try (TargetJvm target = TargetJvm.start(jdk, CounterTarget.class, List.of("-Xmx64m"))) {
            String pid = Long.toString(target.pid());
            JsonNode counter = Json.find(Json.parse(CliRun.run("threads", pid, "--json").out()).path("threads"), "name", "counter");
            target.ask("churn on");
            for (int i = 0; i < 15; i++) {
                Result stacks = CliRun.run("stacks", pid, "--thread", "short-lived-*", "--json");
                boolean noneLeft = stacks.err().equals("jvmti-cli: no live thread matches 'short-lived-*'\n");
                assertEquals(noneLeft ? 1 : 0, stacks.exit(), stacks.toString());
                assertEquals(0, CliRun.run("monitors", pid).exit());
                assertEquals(0, CliRun.run("deadlocks", pid).exit());
            }
            long started = Long.parseLong(target.ask("churn off"));
            assertTrue(started > 15, "the target started " + started + " threads");
            try (RawAgentSocket raw = new RawAgentSocket(target.pid())) {
                raw.send("{\"v\":7,\"id\":1,\"cmd\":\"stacks\",\"threads\":[" + Long.MAX_VALUE + "," + counter.path("id").asLong() + "]}\n");
                JsonNode answer = Json.parse(raw.readLine());
                assertTrue(answer.path("ok").asBoolean(), answer.toString());
                assertEquals(List.of("counter"), answer.path("result").path("parts").findValuesAsText("name"));
            }
        }
    }
}
