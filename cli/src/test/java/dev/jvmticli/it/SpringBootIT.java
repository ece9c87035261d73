package dev.jvmticli.it;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.jvmticli.testing.CliRun;
import dev.jvmticli.testing.CliRun.Result;
import dev.jvmticli.testing.DebianRoots;
import dev.jvmticli.testing.DumpConsistency;
import dev.jvmticli.testing.HttpLoad;
import dev.jvmticli.testing.Jdks;
import dev.jvmticli.testing.Json;
import dev.jvmticli.testing.JsonThreadDumps;
import dev.jvmticli.testing.TargetJvm;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A Spring Boot 3.5 server as people now run one: each request on a virtual thread
 * ({@code spring.threads.virtual.enabled=true}), a HikariCP pool of 4 on H2, Tomcat
 * (servers/spring-shop, its own JVM and class path), under HTTP load this test generates on
 * 127.0.0.1. On JDK 25 (this machine's) and on Debian 13's OpenJDK 21 in its root. Each fact the
 * tool prints is held against one from outside it: the requests' own answers, jcmd's
 * {@code Thread.dump_to_file} taken right after, the load generator's record of every request.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SpringBootIT {
    private static final Path JAR = Path.of(System.getProperty("user.dir")).resolve("../servers/spring-shop/target/spring-shop.jar").normalize();
    /** Spring Boot's start costs seconds of CPU, minutes on two cores busy with other builds (docs/performance.md): a bound for a hang only. */
    private static final Duration START = Duration.ofSeconds(300);
    /** Requests of every kind: the shared monitor, the pool, the fast answer, the leak. */
    private static final List<String> MIX = List.of("/sync", "/orders/count", "/fast", "/sync", "/leak", "/orders/count");
    private static final int CLIENTS = 40;
    /** Longer than any one check takes; the load stops by itself after it. */
    private static final Duration LONGEST_LOAD = Duration.ofSeconds(120);
    private static final int DUMPS = 3;
    private static final int SYNC_CLIENTS = 50;
    private static final int EXHAUSTING_CLIENTS = 200;
    /** The shop's Hikari pool: spring.datasource.hikari.maximum-pool-size in its application.properties. */
    private static final int POOL_SIZE = 4;
    private static final String GET_CONNECTION = "com.zaxxer.hikari.pool.HikariPool.getConnection";
    private static final String COUNT_ORDERS = "dev.jvmticli.springshop.OrderService.countOrdersSlowly";
    /** Where Hikari's getConnection waits for a connection: its bag's hand-off queue. */
    private static final String BORROW = "com.zaxxer.hikari.util.ConcurrentBag.borrow";
    private static final long MS = 1_000_000;
    /** summary.md's first line for the pool exhaustion: how many wait on the pool's queue, how many hold its connections. */
    private static final Pattern MAIN_WAIT = Pattern.compile(
            "^\\*\\*Most threads wait for:\\*\\* (\\d+) threads .*SynchronousQueue.*: (\\d+) threads?: .*OrderService\\.countOrdersSlowly");
    /** A worker of the JDK's virtual-thread scheduler: a carrier. */
    private static final Pattern CARRIER = Pattern.compile("ForkJoinPool-\\d+-worker-\\d+");

    /** `threads`' line for the virtual threads it does not list. */
    private static final Pattern VIRTUAL_HINT = Pattern.compile("^(\\d+) virtual threads? not listed \\((\\d+) mounted\\): threads --virtual lists them",
            Pattern.MULTILINE);

    /** A JDK the server runs on: the machine's, or one in a Debian root (then wrapper and jar are the root's). */
    record Case(String where, Jdks.Jdk jdk, DebianRoots.RootJdk rootJdk, List<String> wrapper, String jar) {
        @Override
        public String toString() {
            return "JDK " + jdk.feature() + " (" + where + ")";
        }
    }

    /** A running server: its JVM and its base URL. */
    record Server(TargetJvm target, URI base) {
        String pid() {
            return Long.toString(target.pid());
        }
    }

    /** A check that runs while the load does. */
    interface LoadedCheck {
        void run(Server server, HttpLoad load) throws Exception;
    }

    private final Map<Case, Server> servers = new ConcurrentHashMap<>();
    /** The same server with its requests on platform threads, where contention compares with it. */
    private final Map<Case, Server> platformServers = new ConcurrentHashMap<>();

    private List<Case> cases;

    /** Made once: a root's case copies the jar into the root. */
    synchronized Stream<Case> cases() {
        if (cases == null) {
            cases = findCases();
        }
        return cases.stream();
    }

    private static List<Case> findCases() {
        Stream<Case> machine = Jdks.stream().filter(j -> j.feature() == 25)
                .map(j -> new Case("this machine's", j, null, List.of(), JAR.toString()));
        Stream<Case> debian = !"root".equals(ProcessHandle.current().info().user().orElse("")) ? Stream.empty()
                : DebianRoots.jdks().filter(j -> j.suite().equals("trixie") && j.feature() == 21)
                        .map(j -> new Case("Debian 13's, in its root", j.inside(), j, DebianRoots.ownMountNamespace(j.root()),
                                DebianRoots.copyInto(j.root(), JAR).toString()));
        return Stream.concat(machine, debian).toList();
    }

    @BeforeAll
    void startServers() {
        // together: each start is mostly the JVM's own work on one core
        List<CompletableFuture<Void>> starts = new ArrayList<>();
        cases().forEach(c -> {
            starts.add(CompletableFuture.runAsync(() -> servers.put(c, start(c, List.of()))));
            if (c.jdk().feature() >= 24) {
                starts.add(CompletableFuture.runAsync(() -> platformServers.put(c, start(c, List.of("-Dspring.threads.virtual.enabled=false")))));
            }
        });
        starts.forEach(CompletableFuture::join);
    }

    private static Server start(Case c, List<String> jvmOptions) {
        TargetJvm target = TargetJvm.startProgram(c.wrapper(), c.jdk(), jvmOptions, List.of("-jar", c.jar()), "spring-shop", START);
        String port = target.ask("port");
        assertTrue(port.startsWith("port "), port);
        return new Server(target, URI.create("http://127.0.0.1:" + port.substring("port ".length()) + "/"));
    }

    @AfterAll
    void stopServers() {
        servers.values().forEach(s -> s.target().close());
        platformServers.values().forEach(s -> s.target().close());
    }

    private void underLoad(Case c, List<String> paths, int clients, LoadedCheck check) throws Exception {
        Server server = servers.get(c);
        try (HttpLoad load = HttpLoad.start(server.base(), paths, clients, LONGEST_LOAD)) {
            load.awaitSucceeded(100, Duration.ofSeconds(60));
            check.run(server, load);
            assertTrue(load.running(), "the load ran until the end of the check");
        }
    }

    @ParameterizedTest
    @MethodSource("cases")
    @Order(1)
    void requestsRunOnVirtualThreadsAndThreadsSaysTheyExist(Case c) throws Exception {
        Server server = servers.get(c);
        HttpResponse<String> fast = HttpClient.newHttpClient().send(HttpRequest.newBuilder(server.base().resolve("/fast")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertTrue(fast.body().contains("\"thread\":\"VirtualThread["), c + ": the request's own thread: " + fast.body());
        underLoad(c, MIX, CLIENTS, (s, load) -> {
            // known only when some carrier has a virtual thread mounted (docs/virtual-threads.md): a busy server's do now and then
            List<String> outputs = new ArrayList<>();
            Matcher hint = null;
            for (int attempt = 0; attempt < 8 && (hint == null || !hint.find()); attempt++) {
                outputs.add(cli(0, "threads", s.pid()).out());
                hint = VIRTUAL_HINT.matcher(outputs.get(attempt));
            }
            long jcmdCount = JsonThreadDumps.virtualThreads(jcmdDump(c, s));
            System.out.printf("%s: threads says \"%s\"; jcmd's dump right after lists %d virtual threads%n", c,
                    hint.find(0) ? hint.group() : "", jcmdCount);
            assertTrue(hint.find(0) && Long.parseLong(hint.group(1)) > 0,
                    c + ": threads does not say that virtual threads exist:\n" + String.join("\n----\n", outputs));
            assertTrue(jcmdCount > 0, c + ": jcmd lists no virtual thread either");
        });
    }

    @ParameterizedTest
    @MethodSource("cases")
    @Order(2)
    void everyVirtualThreadAndCarrierIsAsConsistentAsInJcmdsDump(Case c) throws Exception {
        underLoad(c, MIX, CLIENTS, (server, load) -> {
            Map<String, Integer> ours = new TreeMap<>();
            Map<String, Integer> theirs = new TreeMap<>();
            List<String> ourThreads = new ArrayList<>();
            int virtual = 0;
            int threads = 0;
            int unsettled = 0;
            for (int round = 1; round <= DUMPS; round++) {
                JsonNode our = Json.parse(cli(0, "stacks", "--all", "--no-group", "--json", server.pid()).out());
                JsonNode their = jcmdDump(c, server);
                String ourText = JsonThreadDumps.ofStacks(our);
                String theirText = JsonThreadDumps.ofJcmd(their);
                List<String> ourInconsistent = DumpConsistency.inconsistentThreads(ourText);
                List<String> theirInconsistent = DumpConsistency.inconsistentThreads(theirText);
                count(ourInconsistent, ours);
                count(theirInconsistent, theirs);
                for (String thread : ourInconsistent) {
                    String name = thread.substring(0, thread.indexOf('"', 1) + 1);
                    Stream.of(ourText.split("\n\n")).filter(b -> b.startsWith(name + " #")).forEach(ourThreads::add);
                }
                int roundVirtual = 0;
                for (JsonNode t : our.path("threads")) {
                    roundVirtual += t.path("thread").path("virtual").asBoolean() ? 1 : 0;
                }
                virtual += roundVirtual;
                threads += DumpConsistency.threadCount(ourText);
                unsettled += DumpConsistency.unsettledThreads(ourText).size();
                System.out.printf("%s, dump %d: ours %d threads (%d virtual; lock source %s), %d inconsistent; jcmd's %d threads (%d virtual),"
                        + " %d inconsistent%n", c, round, DumpConsistency.threadCount(ourText), roundVirtual, our.path("lockSource").asText(),
                        ourInconsistent.size(),
                        JsonThreadDumps.threadCount(their),
                        JsonThreadDumps.virtualThreads(their), theirInconsistent.size());
            }
            System.out.printf("%s: %d dumps, %d threads (%d virtual, %d with lock lines left out); contradictions by kind, ours %s, jcmd's %s%n",
                    c, DUMPS, threads, virtual, unsettled, ours, theirs);
            assertTrue(virtual > 0, c + ": no virtual thread in " + DUMPS + " dumps under load");
            List<String> worse = new ArrayList<>();
            ours.forEach((kind, n) -> {
                if (n > theirs.getOrDefault(kind, 0)) {
                    worse.add(kind + ": " + n + " in ours, " + theirs.getOrDefault(kind, 0) + " in jcmd's");
                }
            });
            assertEquals(List.of(), worse, c + ": contradictions jcmd's dumps taken right after had fewer of:\n" + String.join("\n", ourThreads));
        });
    }

    /** Each contradiction of each thread, counted by its kind (numbers in it made N). */
    private static void count(List<String> inconsistent, Map<String, Integer> byKind) {
        for (String thread : inconsistent) {
            for (String reason : thread.substring(thread.lastIndexOf(": ") + 2).split("; ")) {
                byKind.merge(reason.replaceAll("\\d+", "N"), 1, Integer::sum);
            }
        }
    }

    /**
     * contention on /sync alone (every request holds the one shared monitor 5 ms), 50 clients: the
     * waiters are the requests' virtual threads, more than there are carriers, and the holder is
     * seen. The blocked time per enter, where a virtual thread blocked on a monitor unmounts (JDK 24
     * and later), is the same server's on platform threads. On JDK 21 a blocked virtual thread stays
     * pinned (only the carriers block on the monitor, ~5 ms each, the other requests wait for a
     * carrier): its figure is held to the requests' own clock over the enters that found the
     * monitor held (the ones that wait; contention sees no other).
     */
    @ParameterizedTest
    @MethodSource("cases")
    @Order(3)
    void contentionMeasuresTheWaitOfEachVirtualThread(Case c) throws Exception {
        Contended virtual = contended(c, servers.get(c));
        System.out.printf("%s, /sync with %d clients, on virtual threads: %s%n", c, SYNC_CLIENTS, virtual);
        assertTrue(virtual.carriers() > 0 && virtual.waiters() > virtual.carriers(),
                c + ": " + virtual.waiters() + " distinct waiters named, " + virtual.carriers() + " carriers");
        assertTrue(virtual.holders() > 0, c + ": no holder seen: " + virtual);
        if (c.jdk().feature() < 24) {
            assertWithin(virtual.blockedMillisPerEnter(), virtual.ownContendedMillisPerEnter(),
                    c + ": per enter, against the requests' own clock over the enters that found the monitor held");
            return;
        }
        Contended platform = contended(c, platformServers.get(c));
        System.out.printf("%s, /sync with %d clients, on platform threads: %s%n", c, SYNC_CLIENTS, platform);
        assertWithin(virtual.blockedMillisPerEnter(), platform.blockedMillisPerEnter(), c + ": per enter, virtual against platform threads");
    }

    private static void assertWithin(double measured, double truth, String what) {
        assertTrue(Math.abs(measured - truth) <= 0.2 * truth, String.format("%s: %.1f ms, against %.1f ms", what, measured, truth));
    }

    /**
     * What contention reported of the shop's monitor and what the requests measured of it while it ran.
     * ownMillisPerEnter counts every enter, also those that did not wait; ownContendedMillisPerEnter
     * only those that found the monitor held.
     */
    record Contended(long enters, double blockedMillisPerEnter, int waiters, int holders, long ownEnters, double ownMillisPerEnter,
                     long ownContendedEnters, double ownContendedMillisPerEnter, int carriers) {
        @Override
        public String toString() {
            return String.format("contention: %d enters, %.1f ms blocked per enter, %d distinct waiters, %d holders;"
                    + " the requests' own clock: %d enters, %.1f ms per enter, %d that found it held, %.1f ms per such enter; %d carriers",
                    enters, blockedMillisPerEnter, waiters, holders, ownEnters, ownMillisPerEnter, ownContendedEnters,
                    ownContendedMillisPerEnter, carriers);
        }
    }

    private Contended contended(Case c, Server server) throws Exception {
        try (HttpLoad load = HttpLoad.start(server.base(), List.of("/sync"), SYNC_CLIENTS, LONGEST_LOAD)) {
            load.awaitSucceeded(100, Duration.ofSeconds(60));
            long[] before = inventory(server);
            JsonNode report = Json.parse(cli(0, "contention", server.pid(), "--duration", "6s", "--json").out());
            long[] after = inventory(server);
            int carriers = 0;
            for (JsonNode t : Json.parse(cli(0, "threads", server.pid(), "--json").out()).path("threads")) {
                carriers += CARRIER.matcher(t.path("name").asText()).matches() ? 1 : 0;
            }
            assertTrue(load.running(), "the load ran until the end of the check");
            HttpLoad.Stats requests = load.stats(List.of(new HttpLoad.Window(Long.MIN_VALUE, Long.MAX_VALUE)));
            assertEquals(0, requests.failures(), c + ": requests failed while contention ran: " + requests.firstFailures());
            for (JsonNode monitor : report.path("monitors")) {
                if (monitor.path("monitor").asText().startsWith("dev.jvmticli.springshop.Inventory$Stock@")) {
                    long enters = monitor.path("enters").asLong();
                    long ownEnters = after[0] - before[0];
                    long ownContended = after[2] - before[2];
                    return new Contended(enters, monitor.path("blockedNanos").asLong() / 1e6 / enters, monitor.path("threads").size(),
                            monitor.path("holders").size(), ownEnters, (after[1] - before[1]) / 1e6 / ownEnters, ownContended,
                            (after[3] - before[3]) / 1e6 / ownContended, carriers);
                }
            }
            throw new AssertionError(c + ": contention names no Inventory$Stock monitor: " + report);
        }
    }

    /** The shop's own count of enters into its monitor and of the nanoseconds they waited, all and those that found it held. */
    private static long[] inventory(Server server) {
        String[] answer = server.target().ask("inventory").split(" ");
        assertEquals("inventory", answer[0], String.join(" ", answer));
        return new long[] {Long.parseLong(answer[1]), Long.parseLong(answer[2]), Long.parseLong(answer[3]), Long.parseLong(answer[4])};
    }

    /**
     * The staged pool exhaustion: 200 clients on /orders/count, whose requests each hold one of
     * the pool's 4 connections ~50 ms in OrderService.countOrdersSlowly. The first line of
     * dump's summary.md names what most requests wait for, the pool's queue (Hikari's
     * ConcurrentBag hands connections over through a SynchronousQueue), and the threads inside
     * countOrdersSlowly that hold its connections. Against jcmd's dump taken right after: most of
     * the 200 requests wait in HikariPool.getConnection there too. The threads it says hold the
     * connections are those holding at one instant: at least one, and no more than the pool has
     * (read one virtual thread at a time, JDK 25 named 8 for the 4 connections).
     */
    @ParameterizedTest
    @MethodSource("cases")
    @Order(4)
    void dumpNamesThePoolsQueueAndTheThreadsHoldingItsConnectionsFirst(Case c) throws Exception {
        underLoad(c, List.of("/orders/count"), EXHAUSTING_CLIENTS, (server, load) -> {
            Path out = Files.createTempDirectory("spring-pool-dump");
            try {
                cli(0, "dump", server.pid(), "--out", out.toString(), "--count", "1");
                String summary = Files.readString(out.resolve("summary.md"));
                JsonNode jcmd = jcmdDump(c, server);
                long waiting = JsonThreadDumps.threadsIn(jcmd, GET_CONNECTION, null);
                long inside = JsonThreadDumps.threadsIn(jcmd, COUNT_ORDERS, GET_CONNECTION);
                String first = summary.lines().findFirst().orElse("");
                System.out.printf("%s, %d clients on /orders/count: summary.md begins \"%s\"; jcmd's dump right after: %d threads in"
                        + " HikariPool.getConnection, %d in countOrdersSlowly but not there%n", c, EXHAUSTING_CLIENTS, first, waiting, inside);
                assertTrue(waiting >= EXHAUSTING_CLIENTS / 2, c + ": the pool was not exhausted, jcmd has " + waiting + " waiting");
                Matcher main = MAIN_WAIT.matcher(first);
                assertTrue(main.find(), c + ": summary.md does not begin with the pool's queue and its holders:\n" + summary);
                assertTrue(Integer.parseInt(main.group(1)) >= EXHAUSTING_CLIENTS / 2, c + ": " + first);
                int holding = Integer.parseInt(main.group(2));
                assertTrue(holding >= 1 && holding <= POOL_SIZE, c + ": " + holding + " threads said to hold the pool's " + POOL_SIZE
                        + " connections: " + first);
            } finally {
                deleteTree(out);
            }
        });
    }

    /**
     * The same staged exhaustion over time: contention (parks included) names the pool, the
     * waiters and the holders. The pool is Hikari's queue, a SynchronousQueue parked on in
     * ConcurrentBag.borrow under HikariPool.getConnection: its parks of 1 ms or more at least as
     * many as the shop's own record of its getConnection calls of 1 ms or more in the same window
     * (a call polls again when the connection it was handed was taken first) and at most twice as
     * many as those while it lasted, their total the same (the shop's clock also holds Hikari's own work around the
     * park), every waiter one of the requests' virtual threads. A queue has no
     * exclusiveOwnerThread: the threads contention names as holding up the pool are read after
     * the window by their frames (inside countOrdersSlowly, waiting for nothing); at most the
     * pool's 4, each one the shop records holding a connection between the window's end and the
     * CLI's exit, while most of the waiters then were still waiting.
     */
    @ParameterizedTest
    @MethodSource("cases")
    @Order(5)
    void contentionNamesThePoolItsWaitersAndTheThreadsHoldingItsConnections(Case c) throws Exception {
        underLoad(c, List.of("/orders/count"), EXHAUSTING_CLIENTS, (server, load) -> {
            Result result = cli(0, "contention", server.pid(), "--duration", "4s", "--json");
            long exited = Long.parseLong(server.target().ask("now").substring("now ".length()));
            JsonNode parks = Json.parse(result.out()).path("parks");
            long since = parks.path("sinceNanos").asLong();
            long until = parks.path("untilNanos").asLong();
            List<JsonNode> rows = new ArrayList<>();
            parks.path("sites").forEach(r -> {
                // a virtual thread's timed park may also park on the JDK's own locks under it (JDK 21): not the pool's row
                if (r.path("site").asText().contains(BORROW) && r.path("blocker").asText().startsWith("java.util.concurrent.SynchronousQueue")) {
                    rows.add(r);
                }
            });
            String what = c + ": " + result.out();
            assertEquals(1, rows.size(), "one row of the pool's waits, its SynchronousQueue at " + BORROW + ": " + what);
            JsonNode pool = rows.get(0);
            long parked = parksOfAMillisecondOrMore(pool);
            long parkedNanos = pool.path("totalNanos").asLong();
            List<long[]> borrows = getConnections(server, since, until);
            List<long[]> inside = borrows.stream().filter(b -> b[0] >= since && b[1] <= until).toList();
            long insideWaits = inside.stream().filter(b -> b[1] - b[0] >= MS).count();
            long insideNanos = inside.stream().mapToLong(b -> b[1] - b[0]).sum();
            long overlapWaits = borrows.stream().filter(b -> b[1] - b[0] >= MS).count();
            long overlapNanos = borrows.stream().mapToLong(b -> Math.min(b[1], until) - Math.max(b[0], since)).sum();
            JsonNode holders = null;
            for (JsonNode h : parks.path("holders")) {
                holders = h.path("blocker").asText().equals(pool.path("blocker").asText()) ? h : holders;
            }
            List<String> held = List.of(server.target().ask("holders " + until + " " + exited).substring("holders".length()).trim().split(" "));
            System.out.printf("%s, %d clients on /orders/count: contention's row %s at %s: %d parks of 1 ms or more, %.1f ms parked in all,"
                    + " %d waiters named; the shop's own record: %d getConnection calls of 1 ms or more within the window, %.1f ms in those"
                    + " calls, %.1f ms in all calls while the window lasted;"
                    + " holders named after the window: %s; the shop's threads holding a connection between the window's end and the exit: %d%n",
                    c, EXHAUSTING_CLIENTS, pool.path("blocker").asText(), pool.path("site").asText(), parked, parkedNanos / 1e6,
                    pool.path("waiters").size(), insideWaits, insideNanos / 1e6, overlapNanos / 1e6,
                    holders == null ? "none" : holders.path("threads"), held.size());
            assertAll(c.toString(),
                    () -> assertEquals("park", pool.path("kind").asText(), what),
                    () -> assertFalse(pool.path("idle").asBoolean(), what),
                    () -> assertTrue(insideWaits >= 50, insideWaits + " getConnection calls of 1 ms or more"),
                    // each call of 1 ms or more within the window parks at least once; a borrower handed a connection that another
                    // took first polls again (one call, two parks: more often on a quiet machine), and Hikari does not say how often
                    () -> assertTrue(parked >= 0.9 * insideWaits - POOL_SIZE && parked <= 2 * overlapWaits, parked
                            + " parks of 1 ms or more, the shop's own " + insideWaits + " getConnection calls of 1 ms or more within the window, "
                            + overlapWaits + " while it lasted"),
                    // each park lies within one call and within the window: no more than the calls' time in it, no less than the calls' within it
                    () -> assertTrue(parkedNanos >= 0.95 * insideNanos && parkedNanos <= 1.01 * overlapNanos, parkedNanos / 1e6
                            + " ms parked, the shop's own calls " + insideNanos / 1e6 + " ms within the window, " + overlapNanos / 1e6 + " ms in it"),
                    () -> pool.path("waiters").forEach(w -> assertTrue(w.path("virtual").asBoolean() && w.path("threadId").asLong() > 0, w.toString())));
            assertTrue(holders != null, "no holders named for the pool: " + what);
            JsonNode named = holders.path("threads");
            assertTrue(named.size() >= 1 && named.size() <= POOL_SIZE, named.size() + " threads named holding the pool's " + POOL_SIZE
                    + " connections: " + holders);
            assertTrue(holders.path("sharedFrame").asText().startsWith(COUNT_ORDERS), holders.toString());
            assertTrue(holders.path("waitingAfter").asInt() >= EXHAUSTING_CLIENTS / 2, holders.toString());
            for (JsonNode t : named) {
                String thread = t.path("thread").asText() + "#" + t.path("threadId").asLong();
                assertTrue(held.contains(thread), thread + " is not one the shop records holding a connection between the window's end and"
                        + " the CLI's exit " + held + ": " + holders);
            }
        });
    }

    /** How many parks of a row lasted 1 ms or more, from its histogram's buckets. */
    private static long parksOfAMillisecondOrMore(JsonNode row) {
        long count = 0;
        for (JsonNode b : row.path("buckets")) {
            count += b.get(0).asLong() >= MS ? b.get(2).asLong() : 0;
        }
        return count;
    }

    /** The shop's own record: the getConnection calls that ran at some moment of [since, until], {asked, answered} each. */
    private static List<long[]> getConnections(Server server, long since, long until) {
        String answer = server.target().ask("borrows " + since + " " + until);
        assertTrue(answer.startsWith("borrows"), answer);
        long[] times = Stream.of(answer.substring("borrows".length()).trim().split(" ")).filter(w -> !w.isEmpty()).mapToLong(Long::parseLong)
                .toArray();
        List<long[]> borrows = new ArrayList<>();
        for (int i = 0; i + 1 < times.length; i += 2) {
            borrows.add(new long[] {times[i], times[i + 1]});
        }
        return borrows;
    }

    @ParameterizedTest
    @MethodSource("cases")
    @Order(6)
    void commandsUnderLoadFailNoRequest(Case c) throws Exception {
        underLoad(c, MIX, CLIENTS, (server, load) -> {
            Path dump = Files.createTempDirectory("spring-dump");
            List<List<String>> commands = List.of(List.of("threads"), List.of("stacks", "--all"), List.of("monitors", "--by-lock"),
                    List.of("dump", "--out", dump.toString(), "--interval", "1s"));
            HttpLoad.ToolWindows windows = HttpLoad.runEach(commands, server.pid());
            List<HttpLoad.Window> withTool = windows.withTool();
            List<HttpLoad.Window> withoutTool = windows.withoutTool();
            deleteTree(dump);
            for (int i = 0; i < commands.size(); i++) {
                System.out.printf("%s, while %s ran: %s; as long after it: %s%n", c, String.join(" ", commands.get(i)),
                        load.stats(List.of(withTool.get(i))), load.stats(List.of(withoutTool.get(i))));
            }
            HttpLoad.Stats with = load.stats(withTool);
            HttpLoad.Stats without = load.stats(withoutTool);
            System.out.printf("%s, %d clients: without the tool %s; with every command %s%n", c, CLIENTS, without, with);
            assertEquals(0, with.failures(), c + ": requests failed while the commands ran: " + with.firstFailures());
            assertEquals(0, without.failures(), c + ": requests failed without the tool: " + without.firstFailures());
            assertTrue(with.requests() > 0 && without.requests() > 0, with + " / " + without);
        });
    }

    /** Runs the CLI in this JVM and checks its exit code. */
    private static Result cli(int exit, String... args) {
        Result result = CliRun.run(args);
        assertEquals(exit, result.exit(), String.join(" ", args) + ": " + result);
        return result;
    }

    /**
     * jcmd's Thread.dump_to_file -format=json, by the target's own JDK (in its root and mount
     * namespace), into the target's /tmp, read through /proc/PID/root.
     */
    private static JsonNode jcmdDump(Case c, Server server) throws IOException, InterruptedException {
        String file = "/tmp/jvmti-cli-spring-" + System.nanoTime() + ".json";
        String[] args = {server.pid(), "Thread.dump_to_file", "-format=json", file};
        if (c.rootJdk() != null) {
            DebianRoots.toolOutput(c.rootJdk(), server.target().pid(), "jcmd", args);
        } else {
            List<String> command = new ArrayList<>(List.of(c.jdk().home().resolve("bin/jcmd").toString()));
            command.addAll(List.of(args));
            Process jcmd = new ProcessBuilder(command).redirectErrorStream(true).start();
            String out = new String(jcmd.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertEquals(0, jcmd.waitFor(), out);
        }
        Path written = Path.of("/proc", server.pid(), "root", file.substring(1));
        try {
            return Json.parse(Files.readString(written));
        } finally {
            Files.deleteIfExists(written);
        }
    }

    private static void deleteTree(Path root) throws IOException {
        try (Stream<Path> files = Files.walk(root)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }
}
