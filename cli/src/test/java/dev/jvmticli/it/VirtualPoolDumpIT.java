package dev.jvmticli.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.jvmticli.targets.VirtualPoolTarget;
import dev.jvmticli.testing.CliRun;
import dev.jvmticli.testing.CliRun.Result;
import dev.jvmticli.testing.JcmdThreadDump;
import dev.jvmticli.testing.Jdks;
import dev.jvmticli.testing.Json;
import dev.jvmticli.testing.TargetJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A connection pool exhausted on virtual threads (VirtualPoolTarget: 4 connections held by requests
 * sleeping in countOrdersSlowly, 200 requests waiting in ConnectionPool.borrow): `dump` has the
 * virtual threads, and summary.md's first line says what the requests wait for and who holds the
 * connections, as jcmd's Thread.dump_to_file taken right after shows them; `monitors --by-lock`
 * ranks the pool's wait first and idle waits (pool workers waiting for work, the Finalizer) last.
 */
class VirtualPoolDumpIT {
    private static final Optional<Jdks.Jdk> JDK = Jdks.atLeast(21);

    @Test
    void summarysFirstLineNamesThePoolsWaitAndWhoHoldsTheConnections(@TempDir Path dir) throws Exception {
        assumeTrue(JDK.isPresent(), "no JDK 21 or later is installed: virtual threads cannot be tested here");
        try (TargetJvm target = TargetJvm.start(JDK.get(), VirtualPoolTarget.class, List.of())) {
            String pid = Long.toString(target.pid());
            Path out = dir.resolve("incident");
            Result dump = CliRun.run("dump", pid, "--out", out.toString(), "--count", "1");
            assertEquals(0, dump.exit(), dump.toString());
            JsonNode jcmd = Json.parse(JcmdThreadDump.take(JDK.get(), target.pid(), dir));
            Set<String> waiters = namesWithFrame(jcmd, "VirtualPoolTarget$ConnectionPool.borrow(");
            Set<String> holders = namesWithFrame(jcmd, "VirtualPoolTarget$OrderService.countOrdersSlowly(");
            assertEquals(VirtualPoolTarget.WAITERS, waiters.size(), "jcmd: " + waiters);
            assertEquals(VirtualPoolTarget.POOL_SIZE, holders.size(), "jcmd: " + holders);

            String summary = Files.readString(out.resolve("summary.md"));
            String first = summary.lines().findFirst().orElseThrow();
            assertTrue(first.startsWith("**Most threads wait for:** " + waiters.size() + " threads (" + waiters.size() + " virtual) wait for `<0x"),
                    summary);
            assertTrue(first.contains(" in `java.util.concurrent.ArrayBlockingQueue.poll(")
                    && first.contains(" called from `dev.jvmticli.targets.VirtualPoolTarget$ConnectionPool.borrow("), first);
            assertTrue(first.contains("Inside the same `dev.jvmticli.targets.VirtualPoolTarget$OrderService.countOrders(")
                    && first.contains(": " + holders.size() + " threads: " + holders.size()
                            + " TIMED_WAITING in `dev.jvmticli.targets.VirtualPoolTarget$OrderService.countOrdersSlowly("), first);
            List<String> named = new ArrayList<>();
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("`(request-holding-\\d+)` #").matcher(first);
            while (m.find()) {
                named.add(m.group(1));
            }
            assertFalse(named.isEmpty(), first);
            assertTrue(holders.containsAll(named), "named " + named + ", jcmd's holders " + holders);
            assertFalse(summary.contains("No thread waits"), summary);

            String busiest = summary.substring(summary.indexOf("## Busiest threads"), summary.indexOf("## Stacks of the busiest"));
            assertFalse(busiest.contains(" | 0.0 |"), "a thread that used no CPU is not among the busiest:\n" + busiest);

            Path round = out.resolve("round-001");
            String virtualStacks = Files.readString(round.resolve("virtual-stacks.txt"));
            assertTrue(virtualStacks.contains("\n" + waiters.size() + " threads: \"request-"), virtualStacks);

            JsonNode locks = Json.parse(Files.readString(round.resolve("monitors.json"))).path("locks");
            JsonNode pool = locks.get(0);
            Set<String> waiting = new TreeSet<>();
            for (String list : List.of("entering", "releaseWaiters", "notifyWaiters", "parked")) {
                pool.path(list).forEach(t -> waiting.add(t.path("name").asText()));
            }
            assertEquals(waiters, waiting, "the lock most threads wait on first: " + pool);

            checkRanking(Json.parse(CliRun.run("monitors", pid, "--by-lock", "--json").out()).path("locks"), waiters.size());
        }
    }

    /** The pool's wait first; every idle lock (the idle workers', the Finalizer's) below every other. */
    private static void checkRanking(JsonNode locks, int waiters) {
        assertEquals(waiters, locks.get(0).path("notifyWaiters").size(), locks.get(0).toString());
        boolean pastBusy = false;
        boolean idleWorkers = false;
        boolean finalizer = false;
        for (JsonNode lock : locks) {
            boolean idle = lock.path("idle").asBoolean(false);
            assertFalse(!idle && pastBusy, "an idle lock above a busy one: " + locks);
            pastBusy |= idle;
            for (JsonNode t : lock.path("notifyWaiters")) {
                idleWorkers |= idle && t.path("name").asText().equals("idle-worker");
                finalizer |= idle && t.path("name").asText().equals("Finalizer");
            }
        }
        assertTrue(idleWorkers && finalizer, "the idle workers' and the Finalizer's waits are idle: " + locks);
    }

    private static Set<String> namesWithFrame(JsonNode jcmd, String frame) {
        Set<String> names = new TreeSet<>();
        for (JsonNode container : jcmd.path("threadDump").path("threadContainers")) {
            for (JsonNode t : container.path("threads")) {
                for (JsonNode f : t.path("stack")) {
                    if (f.asText().contains(frame)) {
                        names.add(t.path("name").asText());
                        break;
                    }
                }
            }
        }
        return names;
    }
}
