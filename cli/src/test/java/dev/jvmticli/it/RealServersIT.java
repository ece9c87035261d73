package dev.jvmticli.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.jvmticli.targets.JettyShop;
import dev.jvmticli.targets.TomcatShop;
import dev.jvmticli.testing.CliProcess;
import dev.jvmticli.testing.CliRun;
import dev.jvmticli.testing.CliRun.Result;
import dev.jvmticli.testing.DumpConsistency;
import dev.jvmticli.testing.DumpedThread;
import dev.jvmticli.testing.HttpLoad;
import dev.jvmticli.testing.Jdks;
import dev.jvmticli.testing.Json;
import dev.jvmticli.testing.Launcher;
import dev.jvmticli.testing.TargetJvm;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
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
 * Real servers under HTTP load this test generates: an embedded Tomcat 10.1 on JDK 17 and a Jetty
 * 12 on JDK 25 (each where that JDK is installed), running the shop of {@link TomcatShop} and
 * {@link JettyShop}. Every check runs while the load does, and compares with jstack taken right
 * after: dumps as self-consistent as jstack's, the same native ids across a detach, the hot
 * monitor first in the lock table, no false "- None", allocation sites that name the servlet, a
 * shell that ends when its pipe closes, trace's count of the request handler's calls against the
 * requests the load made, exceptions' counts against what the shop threw, and no request failing
 * because of any command. The
 * deadlock pair is made last, since its two request threads never come back.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RealServersIT {
    /** Half the requests take the inventory monitor: it is the hot lock. */
    private static final List<String> MIX = List.of("/reserve", "/hash", "/reserve", "/catalog", "/reserve", "/sleep", "/reserve", "/ledger");
    private static final int CLIENTS = 8;
    /** Longer than any one check takes; the load stops by itself after it. */
    private static final Duration LONGEST_LOAD = Duration.ofSeconds(120);
    /** How long trace times the request handler; a window as long without the tool follows. */
    private static final Duration TRACED = Duration.ofSeconds(5);
    /** The mix while exceptions counts: a checkout between every two of MIX's requests, which throws while the shop refuses. */
    private static final List<String> CHECKOUT_MIX = MIX.stream().flatMap(path -> Stream.of(path, "/checkout")).toList();
    /** How long the shop refuses checkouts while exceptions counts; as long again right after without the tool. */
    private static final Duration REFUSING = Duration.ofSeconds(3);

    /** One server: which one, on which JDK. */
    record Case(String server, Jdks.Jdk jdk) {
        @Override
        public String toString() {
            return server + " on " + jdk;
        }

        /** The servlet or handler class that allocates the catalog's pages. */
        String catalogClass() {
            return server.equals("Tomcat") ? "TomcatShop$CatalogServlet" : "JettyShop$CatalogHandler";
        }

        /** The server's method that catches what a servlet or handler throws, and answers the request with a 500. */
        String containerCatch() {
            return server.equals("Tomcat") ? "org.apache.catalina.core.StandardWrapperValve.invoke"
                    : "org.eclipse.jetty.server.internal.HttpChannelState$HandlerInvoker.run";
        }

        /** The server's own method that each request goes through once. */
        String requestHandler() {
            return server.equals("Tomcat") ? "org.apache.catalina.connector.CoyoteAdapter.service" : "org.eclipse.jetty.server.Server.handle";
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

    private final Map<Case, Server> servers = new LinkedHashMap<>();
    private Path tomcatBase;

    Stream<Case> cases() {
        Stream<Case> tomcat = Jdks.stream().filter(j -> j.feature() == 17).map(j -> new Case("Tomcat", j));
        Stream<Case> jetty = Jdks.stream().filter(j -> j.feature() == 25).map(j -> new Case("Jetty", j));
        return Stream.concat(tomcat, jetty);
    }

    @BeforeAll
    void startServers() throws IOException {
        tomcatBase = Files.createTempDirectory("tomcat-shop");
        String classPath = System.getProperty("java.class.path");
        cases().forEach(c -> {
            TargetJvm target = c.server().equals("Tomcat")
                    ? TargetJvm.start(c.jdk(), classPath, TomcatShop.class, List.of(), tomcatBase.toString())
                    : TargetJvm.start(c.jdk(), classPath, JettyShop.class, List.of());
            servers.put(c, new Server(target, URI.create("http://127.0.0.1:" + target.ask("port") + "/")));
        });
    }

    @AfterAll
    void stopServers() throws IOException {
        servers.values().forEach(s -> s.target().close());
        deleteTree(tomcatBase);
    }

    private void underLoad(Case c, LoadedCheck check) throws Exception {
        underLoad(c, MIX, check);
    }

    private void underLoad(Case c, List<String> mix, LoadedCheck check) throws Exception {
        Server server = servers.get(c);
        try (HttpLoad load = HttpLoad.start(server.base(), mix, CLIENTS, LONGEST_LOAD)) {
            load.awaitSucceeded(200, Duration.ofSeconds(30));
            check.run(server, load);
            assertTrue(load.running(), "the load ran until the end of the check");
        }
    }

    @ParameterizedTest
    @MethodSource("cases")
    @Order(1)
    void everyThreadOfEveryDumpIsAsConsistentAsJstacks(Case c) throws Exception {
        underLoad(c, (server, load) -> {
            List<String> ours = new ArrayList<>();
            List<String> theirs = new ArrayList<>();
            List<String> oursMissing = new ArrayList<>();
            List<String> theirsMissing = new ArrayList<>();
            for (int round = 1; round <= 5; round++) {
                String our = cli(0, "stacks", "-l", server.pid()).out();
                String their = jstack(c, server, "-l");
                System.out.printf("%s, dump %d: %d inconsistent threads and %d parked without their blocker in ours, %d and %d in jstack's%n",
                        c, round, DumpConsistency.inconsistentThreads(our).size(), DumpConsistency.missingBlockers(our).size(),
                        DumpConsistency.inconsistentThreads(their).size(), DumpConsistency.missingBlockers(their).size());
                ours.addAll(DumpConsistency.inconsistentThreads(our));
                theirs.addAll(DumpConsistency.inconsistentThreads(their));
                oursMissing.addAll(DumpConsistency.missingBlockers(our));
                theirsMissing.addAll(DumpConsistency.missingBlockers(their));
            }
            assertTrue(ours.size() <= theirs.size(), c + ": " + ours.size() + " inconsistent threads in five dumps of ours, "
                    + theirs.size() + " in jstack's taken right after each:\n" + String.join("\n", ours));
            assertTrue(oursMissing.size() <= theirsMissing.size(), c + ": " + oursMissing.size() + " threads without their blocker in ours, "
                    + theirsMissing.size() + " in jstack's:\n" + String.join("\n", oursMissing));
        });
    }

    @ParameterizedTest
    @MethodSource("cases")
    @Order(2)
    void nativeIdsAreJstacksInOneSessionAndAfterAReattach(Case c) throws Exception {
        underLoad(c, (server, load) -> {
            List<String> wrong = new ArrayList<>();
            wrong.addAll(nidsAgainstJstack(c, server, "threads, first session"));
            wrong.addAll(stackHeaderNidsAgainstJstack(c, server, "stacks, first session"));
            cli(0, "detach", server.pid());
            wrong.addAll(nidsAgainstJstack(c, server, "threads, after detach and attach"));
            wrong.addAll(stackHeaderNidsAgainstJstack(c, server, "stacks, after detach and attach"));
            assertTrue(wrong.isEmpty(), c + ": native ids that are not jstack's:\n" + String.join("\n", wrong));
        });
    }

    /** The threads command's NID of every thread jstack also lists, where it differs from jstack's. */
    private List<String> nidsAgainstJstack(Case c, Server server, String when) {
        Map<Long, Long> ours = new TreeMap<>();
        Map<Long, String> names = new TreeMap<>();
        for (JsonNode t : Json.parse(cli(0, "threads", server.pid(), "--json").out()).path("threads")) {
            ours.put(t.path("id").asLong(), t.path("nid").asLong());
            names.put(t.path("id").asLong(), t.path("name").asText());
        }
        return differences(when, ours, names, nativeIds(jstack(c, server)));
    }

    private List<String> stackHeaderNidsAgainstJstack(Case c, Server server, String when) {
        Map<Long, Long> ours = new TreeMap<>();
        Map<Long, String> names = new TreeMap<>();
        for (DumpedThread t : DumpedThread.parse(cli(0, "stacks", server.pid()).out())) {
            ours.put(t.id(), t.nid());
            names.put(t.id(), t.name());
        }
        return differences(when, ours, names, nativeIds(jstack(c, server)));
    }

    private static List<String> differences(String when, Map<Long, Long> ours, Map<Long, String> names, Map<Long, Long> jstack) {
        List<String> wrong = new ArrayList<>();
        int compared = 0;
        for (Map.Entry<Long, Long> e : ours.entrySet()) {
            Long theirs = jstack.get(e.getKey());
            if (theirs == null) {
                continue; // the thread ended in between
            }
            compared++;
            if (!theirs.equals(e.getValue())) {
                wrong.add(when + ": \"" + names.get(e.getKey()) + "\" #" + e.getKey() + " nid " + e.getValue() + ", jstack's " + theirs);
            }
        }
        assertTrue(compared >= 20, when + ": only " + compared + " threads in both lists");
        return wrong;
    }

    private static Map<Long, Long> nativeIds(String jstackText) {
        Map<Long, Long> nids = new TreeMap<>();
        DumpedThread.parse(jstackText).forEach(t -> nids.put(t.id(), t.nid()));
        return nids;
    }

    @ParameterizedTest
    @MethodSource("cases")
    @Order(3)
    void theHotMonitorIsTheMostContendedLockAndIdlePoolsAreNot(Case c) throws Exception {
        underLoad(c, (server, load) -> {
            List<String> tables = new ArrayList<>();
            boolean hotFirst = false;
            for (int snapshot = 0; snapshot < 3 && !hotFirst; snapshot++) {
                JsonNode locks = Json.parse(cli(0, "monitors", server.pid(), "--by-lock", "--json").out()).path("locks");
                StringBuilder table = new StringBuilder();
                for (JsonNode lock : locks) {
                    String className = lock.path("lock").path("className").asText();
                    int entering = lock.path("entering").size();
                    table.append(className).append(": ").append(entering).append(" waiting to enter ")
                            .append(names(lock.path("entering"))).append(", ")
                            .append(lock.path("notifyWaiters").size()).append(" to be notified\n");
                    assertTrue(!className.endsWith("ConditionObject") || entering == 0,
                            c + ": a thread awaiting a condition does not contend for it:\n" + table);
                }
                tables.add(table.toString());
                hotFirst = locks.size() > 0 && locks.get(0).path("lock").path("className").asText().endsWith("Shop$Inventory")
                        && locks.get(0).path("entering").size() > 0;
            }
            assertTrue(hotFirst, c + ": the inventory monitor is not the first contended lock in 3 snapshots:\n"
                    + String.join("\n", tables));

            List<String> summaries = new ArrayList<>();
            String firstRow = "";
            for (int attempt = 0; attempt < 3 && !firstRow.contains("Shop$Inventory"); attempt++) {
                Path dump = Files.createTempDirectory("real-server-summary");
                cli(0, "dump", server.pid(), "--out", dump.toString(), "--interval", "1s");
                summaries.add(Files.readString(dump.resolve("summary.md")));
                deleteTree(dump);
                firstRow = firstContendedLock(summaries.get(attempt));
            }
            assertTrue(firstRow.contains("Shop$Inventory"),
                    c + ": summary.md does not rank the inventory monitor first in 3 dumps:\n" + String.join("\n", summaries));
        });
    }

    private static List<String> names(JsonNode threads) {
        List<String> names = new ArrayList<>();
        threads.forEach(t -> names.add(t.path("name").asText()));
        return names;
    }

    /** The first row of summary.md's "Locks most threads wait on" table, or "" when it has none. */
    private static String firstContendedLock(String summary) {
        List<String> lines = summary.lines().toList();
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).startsWith("## Locks most threads wait on")) {
                return lines.stream().skip(i + 3).findFirst().filter(row -> row.startsWith("| ")).orElse("");
            }
        }
        return "";
    }

    @ParameterizedTest
    @MethodSource("cases")
    @Order(4)
    void noThreadSaysNoneWhereJstackListsASynchronizerItOwns(Case c) throws Exception {
        underLoad(c, (server, load) -> {
            String text = cli(0, "stacks", "-l", server.pid()).out();
            List<DumpedThread> ours = DumpedThread.parse(text);
            Map<Long, DumpedThread> theirs = new TreeMap<>();
            DumpedThread.parse(jstack(c, server, "-l")).forEach(t -> theirs.put(t.id(), t));
            List<String> falseNone = new ArrayList<>();
            int compared = 0;
            for (DumpedThread t : ours) {
                DumpedThread jstack = theirs.get(t.id());
                // a thread that moved between the two dumps may have taken or let go of a lock since
                if (jstack == null || jstack.synchronizers().isEmpty() || !jstack.frames().equals(t.frames())) {
                    continue;
                }
                compared++;
                if (t.saysNone()) {
                    falseNone.add("\"" + t.name() + "\" #" + t.id() + ": ours \"- None\", jstack -l " + jstack.synchronizers());
                }
            }
            System.out.printf("%s: stacks -l, %d threads, %d whose synchronizers are not known (they ran while the heap was walked);"
                    + " %d at the same frames as in jstack -l, which lists synchronizers for them%n", c, ours.size(),
                    text.lines().filter(l -> l.startsWith("\t- (not known: the thread ran")).count(), compared);
            assertTrue(compared > 0, c + ": no thread both at the same frames and owning a synchronizer in jstack's dump (the acceptor does)");
            assertTrue(falseNone.isEmpty(), c + ": " + String.join("\n", falseNone));
        });
    }

    @ParameterizedTest
    @MethodSource("cases")
    @Order(5)
    void anAllocationSiteNamesTheServletThatAllocated(Case c) throws Exception {
        underLoad(c, (server, load) -> {
            String out = cli(0, "alloc", server.pid(), "--duration", "3s", "--top", "20").out();
            int sites = out.indexOf("Top allocation sites:");
            assertTrue(sites >= 0, out);
            assertTrue(out.substring(sites).contains(c.catalogClass()), c + ": no site names " + c.catalogClass() + ":\n" + out);
        });
    }

    @ParameterizedTest
    @MethodSource("cases")
    @Order(6)
    void aShellWatchEndsWhenThePipeDownstreamCloses(Case c) throws Exception {
        underLoad(c, (server, load) -> {
            String pipeline = Launcher.script() + " shell " + server.pid() + " -c 'watch -n 1 threads --top 2' | head -5";
            ProcessBuilder builder = new ProcessBuilder("bash", "-c", pipeline).redirectError(ProcessBuilder.Redirect.DISCARD);
            builder.environment().put("JAVA_HOME", Jdks.current().home().toString());
            Process bash = builder.start();
            List<String> printed = new CopyOnWriteArrayList<>();
            Thread reader = new Thread(() -> new BufferedReader(new InputStreamReader(bash.getInputStream(), StandardCharsets.UTF_8))
                    .lines().forEach(printed::add), "head's output");
            reader.setDaemon(true);
            reader.start();
            try {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (printed.size() < 5 && bash.isAlive() && System.nanoTime() < deadline) {
                    Thread.sleep(20);
                }
                assertEquals(5, printed.size(), c + ": head printed five lines of the watch: " + printed);
                // head exits on its fifth line; the shell's next write finds the pipe closed
                assertTrue(bash.waitFor(10, TimeUnit.SECONDS), c + ": the shell still ran 10 s after head exited");
            } finally {
                bash.descendants().forEach(ProcessHandle::destroyForcibly);
                bash.destroyForcibly();
            }
        });
    }

    @ParameterizedTest
    @MethodSource("cases")
    @Order(7)
    void everyCommandUnderLoadFailsNoRequest(Case c) throws Exception {
        underLoad(c, (server, load) -> {
            Path dump = Files.createTempDirectory("real-server-dump");
            List<List<String>> commands = List.of(List.of("threads"), List.of("stacks"), List.of("stacks", "-l"), List.of("monitors"),
                    List.of("monitors", "--by-lock"), List.of("deadlocks"), List.of("dump", "--out", dump.toString(), "--interval", "1s"),
                    List.of("alloc", "--duration", "2s"), List.of("contention", "--duration", "2s"), List.of("jit"),
                    List.of("shell", "-c", "threads --top 3; stacks -l; monitors --by-lock; deadlocks; jit --class dev.*"));
            HttpLoad.ToolWindows windows = HttpLoad.runEach(commands, server.pid());
            List<HttpLoad.Window> withTool = windows.withTool();
            List<HttpLoad.Window> withoutTool = windows.withoutTool();
            deleteTree(dump);
            for (int i = 0; i < commands.size(); i++) {
                System.out.printf("%s, while %s ran: %s%n", c, String.join(" ", commands.get(i)), load.stats(List.of(withTool.get(i))));
            }

            HttpLoad.Stats with = load.stats(withTool);
            HttpLoad.Stats without = load.stats(withoutTool);
            double seconds = withTool.stream().mapToLong(w -> w.toNanos() - w.fromNanos()).sum() / 1e9;
            System.out.printf("%s, %.1f s with the commands and as long without: without the tool %s; with every command %s%n",
                    c, seconds, without, with);
            assertEquals(0, with.failures(), c + ": requests failed while the commands ran: " + with.firstFailures());
            assertEquals(0, without.failures(), c + ": requests failed without the tool: " + without.firstFailures());
            assertTrue(with.requests() > 0 && without.requests() > 0, with + " / " + without);
        });
    }

    /**
     * trace on the server's own request handler for TRACED while the load runs: every request the load
     * generator sent after the probes were in and got back before the window could have ended is
     * counted, and no more calls than requests overlapped the CLI's run; no request failed; the class
     * put back. The load's p50 and p99 while traced and in a window as long right after are printed,
     * not held to a bound (a timing on a shared machine).
     */
    @ParameterizedTest
    @MethodSource("cases")
    @Order(8)
    void traceOfTheRequestHandlerCountsTheLoadsRequestsAndFailsNone(Case c) throws Exception {
        underLoad(c, (server, load) -> {
            long cliStart = System.nanoTime();
            Process cli = CliProcess.start(List.of(), Jdks.current(), CliProcess.jar(), "trace", server.pid(), c.requestHandler(),
                    "--duration", TRACED.toSeconds() + "s", "--json");
            CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> readAll(cli.getInputStream()));
            BufferedReader err = new BufferedReader(new InputStreamReader(cli.getErrorStream(), StandardCharsets.UTF_8));
            String tracing = err.readLine();
            long probesIn = System.nanoTime();
            CompletableFuture<String> restOfErr = CompletableFuture.supplyAsync(() -> String.join("\n", err.lines().toList()));
            assertTrue(cli.waitFor(60, TimeUnit.SECONDS), c + ": trace did not end in 60 s");
            long cliEnd = System.nanoTime();
            assertEquals(0, cli.exitValue(), c + ": " + tracing + "\n" + restOfErr.get());
            assertTrue(tracing != null && tracing.startsWith("tracing 1 method(s) in 1 class(es) for "), c + ": " + tracing);
            Thread.sleep(TimeUnit.NANOSECONDS.toMillis(cliEnd - cliStart));
            long withoutEnd = System.nanoTime();

            JsonNode report = Json.parse(out.get());
            JsonNode handler = report.path("methods").get(0);
            long calls = handler.path("calls").asLong();
            // the window ends at least TRACED after the CLI started (it starts after the probes are in)
            long windowEndsAfter = cliStart + TRACED.toNanos();
            int surely = load.count(s -> s.startNanos() >= probesIn && s.startNanos() + s.latencyNanos() <= windowEndsAfter);
            int possibly = load.count(s -> s.startNanos() < cliEnd && s.startNanos() + s.latencyNanos() > cliStart);
            HttpLoad.Stats whileTraced = load.stats(List.of(new HttpLoad.Window(probesIn, cliEnd)));
            HttpLoad.Stats wholeRun = load.stats(List.of(new HttpLoad.Window(cliStart, cliEnd)));
            HttpLoad.Stats without = load.stats(List.of(new HttpLoad.Window(cliEnd, withoutEnd)));
            System.out.printf("%s: trace %s for %s: %d calls, p50 %.2f ms, p99 %.2f ms (the load sent %d requests surely inside the"
                            + " window, %d overlapping the CLI's run); the load while traced: %s; without the tool right after: %s;"
                            + " during the whole CLI run (attach and retransformations included): %s; %s%n",
                    c, c.requestHandler(), TRACED, calls, handler.path("p50").asLong() / 1e6, handler.path("p99").asLong() / 1e6,
                    surely, possibly, whileTraced, without, wholeRun, report.path("cost"));
            assertTrue(surely > 0, c + ": no request both started after the probes were in and came back within " + TRACED
                    + " of the CLI's start (the attach took " + (probesIn - cliStart) / 1_000_000 + " ms)");
            assertTrue(calls >= surely && calls <= possibly, c + ": " + calls + " calls traced; the load sent " + surely
                    + " requests surely inside the window and " + possibly + " overlapping the CLI's run");
            assertEquals(0, wholeRun.failures(), c + ": requests failed while trace ran: " + wholeRun.firstFailures());
            assertEquals(0, without.failures(), c + ": requests failed without the tool: " + without.firstFailures());
            JsonNode state = report.path("classes").get(0);
            assertEquals(state.path("sha256").asText(), state.path("restoredSha256").asText(), c + ": " + report.path("classes"));
        });
    }

    /**
     * exceptions while the load runs and the shop refuses checkouts (each request an OutOfStock of the
     * shop's own and a NumberFormatException that Integer.parseInt makes for it, both caught), from
     * after the probe is in until before the session ends: each class counted within 5% of the shop's
     * own count and made at the shop's method; no request failed; Throwable put back with the bytes
     * it had; nothing new on the server's stderr. The load's p50 and p99 while counted and in a
     * window as long right after, the shop refusing as before without the tool, are printed.
     */
    @ParameterizedTest
    @MethodSource("cases")
    @Order(9)
    void exceptionsCountsWhatTheShopThrewAndFailsNoRequest(Case c) throws Exception {
        underLoad(c, CHECKOUT_MIX, (server, load) -> {
            int stderrBefore = server.target().stderr().size();
            long cliStart = System.nanoTime();
            ExceptionsCli cli = ExceptionsCli.start(server.pid(), c);
            assertEquals("outOfStock=0 badQuantity=0 failed=0", server.target().ask("refuse"));
            Thread.sleep(REFUSING.toMillis());
            Map<String, Long> thrown = shopsCount(server.target().ask("accept"));
            String json = cli.stop(c);
            long cliEnd = System.nanoTime();
            server.target().ask("refuse");
            Thread.sleep(TimeUnit.NANOSECONDS.toMillis(cliEnd - cliStart));
            Map<String, Long> thrownWithout = shopsCount(server.target().ask("accept"));
            long withoutEnd = System.nanoTime();

            JsonNode report = Json.parse(json);
            HttpLoad.Stats whileCounted = load.stats(List.of(new HttpLoad.Window(cli.probeIn(), cliEnd)));
            HttpLoad.Stats wholeRun = load.stats(List.of(new HttpLoad.Window(cliStart, cliEnd)));
            HttpLoad.Stats without = load.stats(List.of(new HttpLoad.Window(cliEnd, withoutEnd)));
            List<String> rows = new ArrayList<>();
            report.path("exceptions").forEach(r -> rows.add(r.path("exception").asText() + " " + r.path("count").asLong() + " at "
                    + r.path("site").asText() + (r.path("origin").asText().equals(r.path("site").asText()) ? "" : " via " + r.path("origin").asText())));
            System.out.printf("%s: exceptions for %.1f s: the shop threw %s (%s in as long without the tool); counted %s;"
                            + " the load while counted: %s; without the tool right after: %s; during the whole CLI run (attach and"
                            + " retransformations included): %s; %s%n",
                    c, report.path("durationNanos").asLong() / 1e9, thrown, thrownWithout, rows, whileCounted, without, wholeRun,
                    report.path("cost"));
            assertTrue(thrown.get("outOfStock") > 0 && thrown.get("badQuantity").equals(thrown.get("outOfStock")), c + ": " + thrown);
            ExceptionsIT.assertCount(report, "dev.jvmticli.targets.Shop$OutOfStock", thrown.get("outOfStock"));
            ExceptionsIT.assertCount(report, "java.lang.NumberFormatException", thrown.get("badQuantity"));
            assertEquals("dev.jvmticli.targets.Shop.take", ExceptionsIT.site(report, "dev.jvmticli.targets.Shop$OutOfStock"), c + ": " + rows);
            assertEquals("dev.jvmticli.targets.Shop.quantity", ExceptionsIT.site(report, "java.lang.NumberFormatException"), c + ": " + rows);
            assertTrue(ExceptionsIT.origin(report, "java.lang.NumberFormatException").startsWith("java.lang.NumberFormatException.forInputString"),
                    c + ": " + rows);
            assertEquals(0, wholeRun.failures(), c + ": requests failed while exceptions ran: " + wholeRun.firstFailures());
            assertEquals(0, without.failures(), c + ": requests failed without the tool: " + without.firstFailures());
            JsonNode throwable = report.path("classes").get(0);
            assertEquals("Ljava/lang/Throwable;", throwable.path("name").asText());
            assertEquals(throwable.path("sha256").asText(), throwable.path("replacedSha256").asText(), c + ": " + report.path("classes"));
            assertEquals(throwable.path("sha256").asText(), throwable.path("restoredSha256").asText(), c + ": " + report.path("classes"));
            List<String> stderr = server.target().stderr().stream().skip(stderrBefore)
                    .filter(l -> !l.isBlank() && !ExceptionsIT.DYNAMIC_AGENT_WARNING.matcher(l).find()).toList();
            assertEquals(List.of(), stderr, c + ": the server's stderr while exceptions ran");
        });
    }

    /**
     * exceptions in start-up mode ({@code -agentpath:...=v=7,exception-events}, a server JVM of its own) while the load runs and the
     * shop refuses checkouts and fails some: each exception object counted once, however often it was thrown on its way (the shop's
     * OutOfStock is thrown on by Shop.reserveOrder; the PaymentFailed that leaves the shop through Shop.checkout's finally is thrown
     * again by the server's own frames, Tomcat's filter chain's catch and finally blocks). What the shop caught is caught in
     * Shop.checkout, as often as the shop counted it; what the shop threw out is caught by the server's method that answers it with
     * a 500, as often as the shop threw it and the load got a 500. No other request failed. The load's p50 and p99 while counted
     * and in a window as long after (the shop refusing and failing as before, the events off) are printed.
     */
    @ParameterizedTest
    @MethodSource("cases")
    @Order(9)
    void startUpModeSaysWhatTheShopCaughtAndWhatEscapedToTheServer(Case c) throws Exception {
        String library = CliRun.run("agent-path").out().strip();
        Path base = Files.createTempDirectory("tomcat-shop-startup");
        List<String> options = List.of("-agentpath:" + library + "=v=7,exception-events");
        String classPath = System.getProperty("java.class.path");
        try (TargetJvm target = c.server().equals("Tomcat")
                ? TargetJvm.start(c.jdk(), classPath, TomcatShop.class, options, base.toString())
                : TargetJvm.start(c.jdk(), classPath, JettyShop.class, options);
             HttpLoad load = HttpLoad.start(URI.create("http://127.0.0.1:" + target.ask("port") + "/"), CHECKOUT_MIX, CLIENTS, LONGEST_LOAD)) {
            load.awaitSucceeded(200, Duration.ofSeconds(30));
            String pid = Long.toString(target.pid());
            long cliStart = System.nanoTime();
            ExceptionsCli cli = ExceptionsCli.start(pid, c);
            Map<String, Long> shop = refuseAndFail(target, load, REFUSING.toMillis());
            String json = cli.stop(c);
            long cliEnd = System.nanoTime();
            Map<String, Long> shopWithout = refuseAndFail(target, load, TimeUnit.NANOSECONDS.toMillis(cliEnd - cliStart));
            long withoutEnd = System.nanoTime();

            JsonNode report = Json.parse(json);
            HttpLoad.Stats whileCounted = load.stats(List.of(new HttpLoad.Window(cli.probeIn(), cliEnd)));
            HttpLoad.Stats without = load.stats(List.of(new HttpLoad.Window(cliEnd, withoutEnd)));
            List<String> rows = new ArrayList<>();
            report.path("exceptions").forEach(r -> rows.add(r.path("exception").asText() + " thrown " + r.path("thrown") + " caught "
                    + r.path("caught") + " uncaught " + r.path("uncaught")));
            System.out.printf("%s, start-up mode: exceptions for %.1f s: the shop %s (%s in as long without a session); counted %s;"
                            + " caught in %s; the load while counted: %s; without a session right after: %s; %s%n",
                    c, report.path("durationNanos").asLong() / 1e9, shop, shopWithout, rows, report.path("catches"), whileCounted, without,
                    report.path("cost"));
            String outOfStock = "dev.jvmticli.targets.Shop$OutOfStock";
            String badQuantity = "java.lang.NumberFormatException";
            String failed = "dev.jvmticli.targets.Shop$PaymentFailed";
            long caught = shop.get("outOfStock");
            assertTrue(caught > 0 && shop.get("badQuantity") == caught && shop.get("failed") > 0, c + ": " + shop);
            ExceptionsIT.assertThrownCaughtUncaught(report, outOfStock, caught, caught, 0);
            assertEquals(Map.of("dev.jvmticli.targets.Shop.checkout", caught), ExceptionsIT.catches(report, outOfStock, true), c + ": " + rows);
            ExceptionsIT.assertThrownCaughtUncaught(report, badQuantity, caught, caught, 0);
            assertEquals(Map.of("dev.jvmticli.targets.Shop.checkout", caught), ExceptionsIT.catches(report, badQuantity, true), c + ": " + rows);
            ExceptionsIT.assertThrownCaughtUncaught(report, failed, shop.get("failed"), shop.get("failed"), 0);
            assertEquals(Map.of(c.containerCatch(), shop.get("failed")), ExceptionsIT.catches(report, failed, true), c + ": " + rows);

            long meant = load.count(s -> s.startNanos() < cliEnd && MEANT_TO_FAIL.equals(s.failure()));
            assertEquals(shop.get("failed"), meant, c + ": the 500s the load got while counted");
            HttpLoad.Stats all = load.stats(List.of(new HttpLoad.Window(Long.MIN_VALUE, Long.MAX_VALUE)));
            assertEquals(shop.get("failed") + shopWithout.get("failed"), all.failures(),
                    c + ": only the checkouts the shop failed failed: " + all.firstFailures());
            JsonNode throwable = report.path("classes").get(0);
            assertEquals(throwable.path("sha256").asText(), throwable.path("restoredSha256").asText(), c + ": " + report.path("classes"));
        } finally {
            deleteTree(base);
        }
    }

    /** The load's record of a checkout the shop failed. */
    private static final String MEANT_TO_FAIL = "/checkout: HTTP 500";

    /**
     * The shop refuses checkouts and fails some for millis; then its counts, once the load has had the 500 of every checkout it
     * failed (the server's catch came before it).
     */
    private static Map<String, Long> refuseAndFail(TargetJvm target, HttpLoad load, long millis) throws InterruptedException {
        int before = load.count(s -> MEANT_TO_FAIL.equals(s.failure()));
        assertEquals("outOfStock=0 badQuantity=0 failed=0", target.ask("refuse-failing"));
        Thread.sleep(millis);
        Map<String, Long> counts = shopsCount(target.ask("accept"));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (load.count(s -> MEANT_TO_FAIL.equals(s.failure())) - before < counts.get("failed") && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        return counts;
    }

    /** An exceptions CLI in a JVM of its own, its probe in: its report to come, when it said it counts, the rest of its stderr to come. */
    private record ExceptionsCli(Process process, CompletableFuture<String> out, long probeIn, CompletableFuture<String> restOfErr) {
        static ExceptionsCli start(String pid, Case c) throws IOException {
            Process cli = CliProcess.start(List.of(), Jdks.current(), CliProcess.jar(), "exceptions", pid, "--duration", "120s", "--json",
                    "--top", "20");
            CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> readAll(cli.getInputStream()));
            BufferedReader err = new BufferedReader(new InputStreamReader(cli.getErrorStream(), StandardCharsets.UTF_8));
            String counting = err.readLine();
            long probeIn = System.nanoTime();
            CompletableFuture<String> restOfErr = CompletableFuture.supplyAsync(() -> String.join("\n", err.lines().toList()));
            assertTrue(counting != null && counting.startsWith("counting exceptions for "), c + ": " + counting);
            return new ExceptionsCli(cli, out, probeIn, restOfErr);
        }

        /** SIGTERM: the window ends, the report still comes; the report. */
        String stop(Case c) throws Exception {
            process.toHandle().destroy();
            assertTrue(process.waitFor(60, TimeUnit.SECONDS), c + ": exceptions did not end in 60 s");
            String json = out.get();
            assertTrue(json.startsWith("{"), c + ": exit " + process.exitValue() + ", " + json + "\n" + restOfErr.get());
            return json;
        }
    }

    /** The shop's answer to "accept": {@code outOfStock=N badQuantity=M}. */
    private static Map<String, Long> shopsCount(String answer) {
        Map<String, Long> counts = new TreeMap<>();
        for (String field : answer.split(" ")) {
            String[] kv = field.split("=", 2);
            counts.put(kv[0], Long.parseLong(kv[1]));
        }
        return counts;
    }

    @ParameterizedTest
    @MethodSource("cases")
    @Order(10)
    void deadlocksFindsTheTwoDeadlockedRequestThreads(Case c) throws Exception {
        underLoad(c, (server, load) -> {
            HttpClient client = HttpClient.newHttpClient();
            for (String side : List.of("a", "b")) {
                client.sendAsync(HttpRequest.newBuilder(server.base().resolve("/deadlock?side=" + side)).build(),
                        HttpResponse.BodyHandlers.discarding());
            }
            List<String> pair = awaitDeadlockedPair(server.target());
            Result text = cli(10, "deadlocks", server.pid());
            assertTrue(text.out().contains("Found one Java-level deadlock:"), text.out());
            JsonNode document = Json.parse(cli(10, "deadlocks", server.pid(), "--json").out());
            List<String> names = new ArrayList<>();
            for (JsonNode cycle : document.path("deadlocks")) {
                cycle.forEach(t -> names.add(t.path("thread").path("name").asText()));
            }
            assertTrue(names.containsAll(pair), c + ": the deadlock pair " + pair + " is not among " + names);
        });
    }

    private static List<String> awaitDeadlockedPair(TargetJvm target) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < deadline) {
            String[] answer = target.ask("deadlocked").split(" ", 2);
            if (answer[0].equals("2")) {
                return List.of(answer[1].split(","));
            }
            Thread.sleep(50);
        }
        throw new AssertionError("the two deadlock requests did not both arrive in 20 s");
    }

    /** Runs the CLI in this JVM and checks its exit code. */
    private static Result cli(int exit, String... args) {
        Result result = CliRun.run(args);
        assertEquals(exit, result.exit(), String.join(" ", args) + ": " + result);
        return result;
    }

    private static String jstack(Case c, Server server, String... options) {
        List<String> command = new ArrayList<>();
        command.add(c.jdk().home().resolve("bin/jstack").toString());
        command.addAll(List.of(options));
        command.add(server.pid());
        try {
            Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
            CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> {
                try {
                    return new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new AssertionError("jstack did not end in 60 s");
            }
            assertEquals(0, process.exitValue(), "jstack " + String.join(" ", options));
            return out.get();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private static String readAll(InputStream in) {
        try {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void deleteTree(Path root) throws IOException {
        try (Stream<Path> files = Files.walk(root)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
