package dev.jvmticli.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.jvmticli.targets.SharedWaitsTarget;
import dev.jvmticli.testing.CliRun;
import dev.jvmticli.testing.CliRun.Result;
import dev.jvmticli.testing.Jdks;
import dev.jvmticli.testing.Json;
import dev.jvmticli.testing.TargetsPerJdk;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A wait in a shared acquire (a latch, semaphore permits, a read lock) is told apart from one in an
 * exclusive acquire, and what nobody owns is never contention: on SharedWaitsTarget, on every
 * installed JDK (a parked thread's facts are read alike in both agent modes: its blocker's fields).
 * The target's own threads say what each does.
 */
class SharedWaitsIT {
    @RegisterExtension
    static final TargetsPerJdk targets = TargetsPerJdk.of(SharedWaitsTarget.class);

    static Stream<Jdks.Jdk> jdks() {
        return Jdks.stream();
    }

    private static String pid(Jdks.Jdk jdk) {
        return Long.toString(targets.get(jdk).pid());
    }

    private JsonNode json(Jdks.Jdk jdk, String... args) {
        Result result = CliRun.run(Stream.concat(Stream.of(args[0], pid(jdk)), Stream.concat(Stream.of(args).skip(1), Stream.of("--json")))
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
    @MethodSource("jdks")
    void eachParkedAcquireSaysItsMode(Jdks.Jdk jdk) {
        JsonNode threads = json(jdk, "monitors").path("threads");
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
        long writerId = idOf(json(jdk, "stacks").path("threads"), "rw-writer");
        assertEquals(writerId, reader.path("ownerId").asLong(), "the read lock waits for its writer: " + reader);
        JsonNode writer = waitOf(threads, "rw-writer-waiting");
        assertTrue(writer.has("shared") && !writer.path("shared").asBoolean(true), "a write lock is an exclusive acquire: " + writer);
        JsonNode stamped = waitOf(threads, "stamped-reader");
        assertTrue(stamped.path("class").asText().endsWith("StampedLock"), stamped.toString());
        assertTrue(stamped.path("shared").asBoolean(false), "a StampedLock reader: " + stamped);

        Result text = CliRun.run("monitors", pid(jdk));
        assertTrue(text.out().contains("  parked acquiring shared <0x"), text.out());
        assertTrue(text.out().contains("(a java.util.concurrent.CountDownLatch$Sync), no exclusive owner\n"), text.out());
    }

    @ParameterizedTest
    @MethodSource("jdks")
    void whatNobodyOwnsIsNotContentionAndLocksRankByTheirWaiters(Jdks.Jdk jdk) {
        JsonNode locks = json(jdk, "monitors", "--by-lock").path("locks");
        JsonNode latch = lockOf(locks, "CountDownLatch$Sync");
        assertEquals(0, latch.path("entering").size(), "a latch's waiter does not wait to enter: " + latch);
        assertEquals(1, latch.path("releaseWaiters").size(), latch.toString());
        JsonNode semaphore = lockOf(locks, "Semaphore$NonfairSync");
        assertEquals(0, semaphore.path("entering").size(), semaphore.toString());
        assertEquals(2, semaphore.path("releaseWaiters").size(), semaphore.toString());

        // by how many threads wait on each, the more contended first among as many, idle waits last
        int[] previous = null;
        for (JsonNode lock : locks) {
            int waiting = 0;
            for (String list : new String[] {"entering", "releaseWaiters", "notifyWaiters", "parked"}) {
                waiting += lock.path(list).size();
            }
            int[] rank = {lock.path("idle").asBoolean(false) ? 1 : 0, -waiting, -lock.path("entering").size()};
            assertFalse(previous != null && java.util.Arrays.compare(previous, rank) > 0, "ranked by waiters, contended first among as many: " + locks);
            previous = rank;
        }
        assertTrue(lockOf(locks, "ReentrantReadWriteLock$NonfairSync").path("entering").size() > 0,
                "a read lock waited for behind its writer is contended: " + locks);

        Result text = CliRun.run("monitors", pid(jdk), "--by-lock");
        assertTrue(text.out().contains("(a java.util.concurrent.CountDownLatch$Sync)\n  owner: none\n  waiting to enter (0)\n"
                + "  waiting to acquire what nobody owns (1): \"latch-waiter\" #"), text.out());
        assertEquals(0, CliRun.run("deadlocks", pid(jdk)).exit(), "no cycle through what nobody owns");
    }
}
