package dev.jvmticli.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.jvmticli.targets.SharedWaitsTarget;
import dev.jvmticli.testing.AgentMode;
import dev.jvmticli.testing.CliRun;
import dev.jvmticli.testing.CliRun.Result;
import dev.jvmticli.testing.Jdks;
import dev.jvmticli.testing.Json;
import dev.jvmticli.testing.TargetJvm;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A wait in a shared acquire (a latch, semaphore permits, a read lock) is told apart from one in an
 * exclusive acquire, and what nobody owns is never contention: on SharedWaitsTarget, on every
 * installed JDK, in both live-attach and start-up mode. The target's own threads say what each does.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SharedWaitsIT {
    record Case(Jdks.Jdk jdk, AgentMode mode) {
        @Override
        public String toString() {
            return jdk + " " + mode;
        }
    }

    private final Map<String, TargetJvm> targets = new LinkedHashMap<>();

    @BeforeAll
    void startTargets() {
        cases().forEach(c -> targets.put(c.toString(), TargetJvm.start(c.jdk(), SharedWaitsTarget.class, c.mode().jvmOptions())));
    }

    @AfterAll
    void stopTargets() {
        targets.values().forEach(TargetJvm::close);
    }

    Stream<Case> cases() {
        return Jdks.stream().flatMap(jdk -> Stream.of(new Case(jdk, AgentMode.LIVE_ATTACH), new Case(jdk, AgentMode.STARTUP)));
    }

    private String pid(Case c) {
        return Long.toString(targets.get(c.toString()).pid());
    }

    private JsonNode json(Case c, String... args) {
        Result result = CliRun.run(Stream.concat(Stream.of(args[0], pid(c)), Stream.concat(Stream.of(args).skip(1), Stream.of("--json")))
                .toArray(String[]::new));
        assertEquals(0, result.exit(), result.toString());
        return Json.parse(result.out());
    }

    private static JsonNode waitOf(JsonNode threads, String name) {
        for (JsonNode t : threads) {
            if (t.path("thread").path("name").asText().equals(name)) {
                return t.path("waitingFor");
            }
        }
        throw new AssertionError("no thread " + name + " in " + threads);
    }

    private static long idOf(JsonNode threads, String name) {
        for (JsonNode t : threads) {
            if (t.path("thread").path("name").asText().equals(name)) {
                return t.path("thread").path("id").asLong();
            }
        }
        throw new AssertionError("no thread " + name);
    }

    private static JsonNode lockOf(JsonNode locks, String classSuffix) {
        for (JsonNode lock : locks) {
            if (lock.path("lock").path("className").asText().endsWith(classSuffix)) {
                return lock;
            }
        }
        throw new AssertionError("no lock of class *" + classSuffix + " in " + locks);
    }

    @ParameterizedTest
    @MethodSource("cases")
    void eachParkedAcquireSaysItsMode(Case c) {
        JsonNode threads = json(c, "monitors").path("threads");
        JsonNode latch = waitOf(threads, "latch-waiter");
        assertEquals("acquire", latch.path("kind").asText(), latch.toString());
        assertTrue(latch.path("class").asText().endsWith("CountDownLatch$Sync"), latch.toString());
        assertTrue(latch.path("shared").asBoolean(false), "a latch is awaited in a shared acquire: " + latch);
        assertEquals(-1, latch.path("ownerId").asLong(), "nothing owns a latch: " + latch);
        for (String permit : new String[] {"permit-waiter-1", "permit-waiter-2"}) {
            assertTrue(waitOf(threads, permit).path("shared").asBoolean(false), permit + ": " + waitOf(threads, permit));
        }
        JsonNode reader = waitOf(threads, "rw-reader");
        assertTrue(reader.path("shared").asBoolean(false), reader.toString());
        long writerId = idOf(json(c, "stacks").path("threads"), "rw-writer");
        assertEquals(writerId, reader.path("ownerId").asLong(), "the read lock waits for its writer: " + reader);
        JsonNode writer = waitOf(threads, "rw-writer-waiting");
        assertTrue(writer.has("shared") && !writer.path("shared").asBoolean(true), "a write lock is an exclusive acquire: " + writer);
        JsonNode stamped = waitOf(threads, "stamped-reader");
        assertTrue(stamped.path("class").asText().endsWith("StampedLock"), stamped.toString());
        assertTrue(stamped.path("shared").asBoolean(false), "a StampedLock reader: " + stamped);

        Result text = CliRun.run("monitors", pid(c));
        assertTrue(text.out().contains("  parked acquiring shared <0x"), text.out());
        assertTrue(text.out().contains("(a java.util.concurrent.CountDownLatch$Sync), no exclusive owner\n"), text.out());
    }

    @ParameterizedTest
    @MethodSource("cases")
    void whatNobodyOwnsIsNotContentionAndComesBelowWhatIs(Case c) {
        JsonNode locks = json(c, "monitors", "--by-lock").path("locks");
        JsonNode latch = lockOf(locks, "CountDownLatch$Sync");
        assertEquals(0, latch.path("entering").size(), "a latch's waiter does not wait to enter: " + latch);
        assertEquals(1, latch.path("releaseWaiters").size(), latch.toString());
        JsonNode semaphore = lockOf(locks, "Semaphore$NonfairSync");
        assertEquals(0, semaphore.path("entering").size(), semaphore.toString());
        assertEquals(2, semaphore.path("releaseWaiters").size(), semaphore.toString());

        boolean pastContended = false;
        for (JsonNode lock : locks) {
            boolean contended = lock.path("entering").size() > 0;
            assertFalse(contended && pastContended, "every contended lock comes before every other: " + locks);
            pastContended |= !contended;
        }
        assertTrue(lockOf(locks, "ReentrantReadWriteLock$NonfairSync").path("entering").size() > 0,
                "a read lock waited for behind its writer is contended: " + locks);

        Result text = CliRun.run("monitors", pid(c), "--by-lock");
        assertTrue(text.out().contains("(a java.util.concurrent.CountDownLatch$Sync)\n  owner: none\n  waiting to enter (0)\n"
                + "  waiting to acquire what nobody owns (1): \"latch-waiter\" #"), text.out());
        assertEquals(0, CliRun.run("deadlocks", pid(c)).exit(), "no cycle through what nobody owns");
    }
}
