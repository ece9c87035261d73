package dev.jvmticli.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class JsonThreadDumpsTest {
    @Test
    void aFrameIsItsClassAndMethodWithoutLoaderOrModule() {
        assertEquals("java.lang.Object.wait0", JsonThreadDumps.method("java.base/java.lang.Object.wait0(Native Method)"));
        assertEquals("dev.Shop.sell", JsonThreadDumps.method("app//dev.Shop.sell(Shop.java:12)"));
        assertEquals("com.zaxxer.hikari.pool.HikariPool.getConnection",
                JsonThreadDumps.method("com.zaxxer.hikari.pool.HikariPool.getConnection(HikariPool.java:181)"));
        assertEquals("dev.Shop$$Lambda/0x0000000800c0b000.run", JsonThreadDumps.method("dev.Shop$$Lambda/0x0000000800c0b000.run(Unknown Source)"));
    }

    /** JDK 25's jcmd: what it states is judged; its carrier marks the platform thread as carrying. */
    @Test
    void jcmdsFactsAreWhatTheCheckerJudges() {
        String text = JsonThreadDumps.ofJcmd(Json.parse("""
                {"threadDump": {"threadContainers": [{"container": "<root>", "threads": [
                  {"tid": "30", "name": "blocked", "state": "BLOCKED", "stack": ["dev.Shop.sell(Shop.java:3)"]},
                  {"tid": "31", "name": "entering", "state": "BLOCKED", "blockedOn": "dev.Shop$Stock@1f", "stack": ["dev.Shop.sell(Shop.java:3)"]},
                  {"tid": "40", "virtual": true, "name": "", "state": "RUNNABLE", "carrier": "50", "stack": ["dev.Shop.fast(Shop.java:9)"]},
                  {"tid": "50", "name": "ForkJoinPool-1-worker-1", "state": "RUNNABLE",
                   "stack": ["java.base/jdk.internal.vm.Continuation.run(Continuation.java:248)"]}
                ]}]}}
                """));
        List<String> inconsistent = DumpConsistency.inconsistentThreads(text);
        assertEquals(1, inconsistent.size(), text);
        assertTrue(inconsistent.get(0).startsWith("\"blocked\" BLOCKED"), inconsistent.get(0));
        assertTrue(text.contains("\"\" #40 virtual\n"), text);
        assertTrue(text.contains("   Mounted on carrier #50\n"), text);
        assertTrue(text.contains("\"ForkJoinPool-1-worker-1\" #50 prio=5\n   java.lang.Thread.State: RUNNABLE\n"
                + "\tat jdk.internal.vm.Continuation.run(Unknown Source)\n   Carrying a virtual thread\n"), text);
        assertEquals(1, JsonThreadDumps.virtualThreads(Json.parse("""
                {"threadDump": {"threadContainers": [{"threads": [
                  {"tid": "40", "name": "", "stack": ["java.base/java.lang.VirtualThread.run(VirtualThread.java:329)"]},
                  {"tid": "50", "name": "ForkJoinPool-1-worker-1", "stack": ["java.base/java.lang.VirtualThread.runContinuation(VirtualThread.java:248)"]}
                ]}]}}
                """)));
    }

    /** stacks --json: the JVMTI flags give jstack's wait word, waitingFor its line under the top frame. */
    @Test
    void stacksFactsAreWrittenAsJstacksLines() {
        String text = JsonThreadDumps.ofStacks(Json.parse("""
                {"threads": [
                  {"thread": {"id": 7, "name": "req", "state": "WAITING", "flags": ["parked"], "virtual": true, "carrierId": 50},
                   "frames": [{"class": "jdk.internal.misc.Unsafe", "method": "park"}, {"class": "dev.Shop", "method": "sell"}],
                   "waitingFor": {"kind": "park", "class": "java.util.concurrent.SynchronousQueue$Transferer", "hash": 255},
                   "locked": [{"class": "dev.Shop", "hash": 16, "depth": 1}]},
                  {"thread": {"id": 8, "name": "in", "state": "BLOCKED", "flags": []},
                   "frames": [{"class": "dev.Shop", "method": "sell"}], "unsettled": true}
                ]}
                """));
        assertEquals("""
                "req" #7 virtual
                   java.lang.Thread.State: WAITING (parking)
                \tat jdk.internal.misc.Unsafe.park(Unknown Source)
                \t- parking to wait for <0xff> (a java.util.concurrent.SynchronousQueue$Transferer)
                \tat dev.Shop.sell(Unknown Source)
                \t- locked <0x10> (a dev.Shop)
                   Mounted on carrier #50

                "in" #8 prio=5
                   java.lang.Thread.State: BLOCKED (on object monitor)
                \tat dev.Shop.sell(Unknown Source)
                """ + DumpConsistency.UNSETTLED + " the thread never settled\n\n", text);
        assertEquals(List.of(), DumpConsistency.inconsistentThreads(text));
    }

    /** A blocked virtual thread without a monitor is a contradiction, unless the dump says it knows none of theirs. */
    @Test
    void aVirtualThreadsMonitorIsLeftOutOnlyWhereTheDumpSaysItIsNotKnown() {
        String thread = """
                {"thread": {"id": 9, "name": "", "state": "BLOCKED", "flags": [], "virtual": true, "carrierId": 50, "pinned": true},
                 "frames": [{"class": "dev.Shop", "method": "sell"}]}
                """;
        assertEquals(1, DumpConsistency.inconsistentThreads(JsonThreadDumps.ofStacks(Json.parse(
                "{\"lockSource\": \"management+snapshot\", \"threads\": [" + thread + "]}"))).size());
        assertEquals(List.of(), DumpConsistency.inconsistentThreads(JsonThreadDumps.ofStacks(Json.parse(
                "{\"lockSource\": \"management+parked-only\", \"threads\": [" + thread + "]}"))));
    }
}
