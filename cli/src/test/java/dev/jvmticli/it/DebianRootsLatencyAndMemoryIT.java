package dev.jvmticli.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.jvmticli.targets.ExceptionsTarget;
import dev.jvmticli.targets.LatencyTarget;
import dev.jvmticli.targets.LivePathsTarget;
import dev.jvmticli.targets.LoadersTarget;
import dev.jvmticli.targets.NativeLeakTarget;
import dev.jvmticli.targets.PathsTarget;
import dev.jvmticli.targets.PausesTarget;
import dev.jvmticli.targets.TopTarget;
import dev.jvmticli.testing.CliProcess;
import dev.jvmticli.testing.CliRun;
import dev.jvmticli.testing.CliRun.Result;
import dev.jvmticli.testing.DebianRoots;
import dev.jvmticli.testing.DebianRoots.RootJdk;
import dev.jvmticli.testing.Jdks;
import dev.jvmticli.testing.Json;
import dev.jvmticli.testing.TargetJvm;
import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * `trace`, `exceptions`, `heap --paths` (of a class and --from-live), `heap --dump`, `memory --native`, `memory --classloaders`,
 * `threads --top` and `pauses` on the JDKs this machine does not have: Debian 11's OpenJDK 11
 * (glibc 2.31) and Debian 13's OpenJDK 21,
 * each target JVM in its root and a mount namespace of its own ({@link DebianRoots}, as
 * {@link DebianRootsIT} starts them). Each command is held to what the target itself, its JDK's
 * jcmd or its own -Xlog says, with the checks of the command's own test where they fit.
 */
class DebianRootsLatencyAndMemoryIT {
    private static final Map<Path, Path> CLASSES = new ConcurrentHashMap<>();

    static Stream<RootJdk> jdks() {
        return DebianRoots.jdks().filter(jdk -> jdk.feature() == 11 || jdk.feature() == 21);
    }

    /**
     * trace's percentiles against the target's own record of the same calls (TraceIT's bounds), the
     * slowest call made by checkout, and the class's bytes, read by the next session, as the first
     * read found them after a normal end, a killed CLI and a detach; nothing on the target's stderr.
     */
    @ParameterizedTest
    @MethodSource("jdks")
    void traceAgreesWithTheTargetsOwnRecordAndPutsTheClassBack(RootJdk jdk) throws Exception {
        try (TargetJvm target = start(jdk, LatencyTarget.class, List.of())) {
            String pid = pid(target);
            assertEquals("ran 5", target.ask("run 5")); // Orders is loaded
            assertEquals("reset", target.ask("reset"));
            Process cli = cli("trace", pid, TraceIT.PLACE, "--duration", "120s", "--json", "--top", "1");
            CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> TraceIT.read(cli.getInputStream()));
            TraceIT.awaitTracing(cli);
            assertEquals("ran " + TraceIT.CALLS, target.ask("run " + TraceIT.CALLS));
            cli.toHandle().destroy(); // SIGTERM ends the window; the report still comes
            assertTrue(cli.waitFor(60, TimeUnit.SECONDS));
            JsonNode report = Json.parse(out.get());
            TraceIT.assertPercentiles(report, TraceIT.record(target.ask("record")));
            JsonNode slowest = report.path("slowest").get(0).path("frames");
            assertTrue(slowest.get(1).asText().startsWith("dev.jvmticli.targets.LatencyTarget.checkout:"), jdk + ": " + slowest);
            String original = TraceIT.classState(report).path("sha256").asText();
            assertEquals(original, TraceIT.classState(report).path("restoredSha256").asText(), jdk + ": " + report);

            Process killed = cli("trace", pid, TraceIT.PLACE, "--duration", "120s");
            TraceIT.awaitTracing(killed);
            killed.destroyForcibly();
            assertEquals("ran 10", target.ask("run 10"));
            assertEquals(original, nextSessionsFirstRead(pid), jdk + ": the class as it was after a killed CLI");

            Process detached = cli("trace", pid, TraceIT.PLACE, "--duration", "120s");
            TraceIT.awaitTracing(detached);
            Result detach = CliRun.run("detach", pid);
            assertEquals(0, detach.exit(), jdk + ": " + detach);
            assertTrue(detached.waitFor(20, TimeUnit.SECONDS), jdk + ": the tracing CLI ends at the detach");
            assertEquals("ran 10", target.ask("run 10"));
            assertEquals(original, nextSessionsFirstRead(pid), jdk + ": the class as it was after a detach");
            List<String> stderr = target.stderr().stream()
                    .filter(l -> !l.isBlank() && !TraceIT.DYNAMIC_AGENT_WARNING.matcher(l).find()).toList();
            assertEquals(List.of(), stderr, jdk + ": the target's stderr");
        }
    }

    /**
     * exceptions: each class's count within 5% of the target's own, its site and messages
     * (ExceptionsIT's checks), and Throwable's bytes, read by the next session, as the probe found
     * them after a normal end and after a killed CLI; nothing on the target's stderr.
     */
    @ParameterizedTest
    @MethodSource("jdks")
    void exceptionsAgreeWithTheTargetsOwnCountsAndPutThrowableBack(RootJdk jdk) throws Exception {
        try (TargetJvm target = start(jdk, ExceptionsTarget.class, List.of())) {
            String pid = pid(target);
            assertTrue(target.ask("run 5").startsWith("ran "));
            Process cli = cli("exceptions", pid, "--duration", "120s", "--json", "--top", "10");
            CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> ExceptionsIT.read(cli.getInputStream()));
            ExceptionsIT.awaitCounting(cli);
            Map<String, Long> made = ExceptionsIT.made(target.ask("run 2000"));
            cli.toHandle().destroy(); // SIGTERM ends the window; the report still comes
            assertTrue(cli.waitFor(60, TimeUnit.SECONDS));
            String original = ExceptionsIT.checkAgainstTheTargetsOwnCounts(Json.parse(out.get()), made);
            assertEquals(original, ExceptionsIT.shortSessionSha(onceNotBusy("exceptions", pid, "--duration", "300ms", "--json")),
                    jdk + ": Throwable as it was after a normal end");

            Process killed = cli("exceptions", pid, "--duration", "120s");
            ExceptionsIT.awaitCounting(killed);
            killed.destroyForcibly();
            assertTrue(target.ask("run 10").startsWith("ran ise=40 "));
            assertEquals(original, ExceptionsIT.shortSessionSha(onceNotBusy("exceptions", pid, "--duration", "300ms", "--json")),
                    jdk + ": Throwable as it was after a killed CLI");
            List<String> stderr = target.stderr().stream()
                    .filter(l -> !l.isBlank() && !ExceptionsIT.DYNAMIC_AGENT_WARNING.matcher(l).find()).toList();
            assertEquals(List.of(), stderr, jdk + ": the target's stderr");
        }
    }

    /**
     * heap --paths names the static field, the named thread and the named frame that hold each
     * class's instances (as many as the target counts); heap --dump writes an hprof whose classes
     * are the ones the JVM counts loaded (jcmd PerfCounter.print before and after it).
     */
    @ParameterizedTest
    @MethodSource("jdks")
    void heapPathsNameTheRootsAndTheDumpHoldsTheClassesTheJvmCounts(RootJdk jdk) throws Exception {
        Path library = library(jdk, "/paths/globalref.c", "libglobalref.so");
        try (TargetJvm target = start(jdk, PathsTarget.class, List.of("-Xmx256m"), library.toString())) {
            Map<String, Long> counts = HeapPathsIT.counts(target.ask("counts"));
            JsonNode path = HeapPathsIT.onlyPath(HeapPathsIT.paths(target, "$ByStatic"), counts.get("static"));
            HeapPathsIT.assertRoot(path, "staticField", HeapPathsIT.TARGET, "CACHE");
            assertEquals(List.of("java.util.HashMap", "table", "[]", "value"), HeapPathsIT.steps(path), path.toString());

            path = HeapPathsIT.onlyPath(HeapPathsIT.paths(target, "$ByThreadLocal"), counts.get("threadLocal"));
            assertEquals("thread", path.path("root").path("kind").asText(), path.toString());
            assertEquals("session-worker", path.path("root").path("thread").asText(), path.toString());
            assertEquals(List.of("java.lang.Thread", "threadLocals", "table", "[]", "value"), HeapPathsIT.steps(path).subList(0, 5), path.toString());

            path = HeapPathsIT.onlyPath(HeapPathsIT.paths(target, "$ByLocal"), counts.get("local"));
            JsonNode root = path.path("root");
            assertEquals("stackLocal", root.path("kind").asText(), path.toString());
            assertEquals("request-handler", root.path("thread").asText(), path.toString());
            assertEquals("holdInLocal", root.path("frame").path("method").asText(), path.toString());

            Path dumps = Path.of("/proc", pid(target), "root", "tmp", "dumps"); // the target's own /tmp
            Files.createDirectory(dumps, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            long loadedBefore = loadedClasses(jdk, target);
            Result dump = CliRun.run("heap", pid(target), "--dump", "/tmp/dumps/all.hprof");
            long loadedAfter = loadedClasses(jdk, target);
            assertEquals(0, dump.exit(), jdk + ": " + dump);
            Path hprof = dumps.resolve("all.hprof");
            try (InputStream in = Files.newInputStream(hprof)) {
                assertArrayEquals(HeapDumpIT.HPROF_HEADER, in.readNBytes(HeapDumpIT.HPROF_HEADER.length), jdk + ": " + hprof);
            }
            long dumped = dumpedClasses(hprof);
            assertTrue(dumped >= loadedBefore && dumped <= loadedAfter,
                    jdk + ": " + dumped + " classes in the dump, the JVM counted " + loadedBefore + " loaded before it and " + loadedAfter + " after");
        }
    }

    /**
     * heap --paths --from-live: every survivor sampled at the cache's site on a path from
     * LivePathsTarget.CACHE, every one of the session's from thread "session-worker", the churn on
     * none, each survivor counted once (HeapPathsFromLiveIT's checks).
     */
    @ParameterizedTest
    @MethodSource("jdks")
    void heapPathsFromLiveNameTheHolderOfEachLeakingSite(RootJdk jdk) throws Exception {
        try (TargetJvm target = start(jdk, LivePathsTarget.class, List.of("-XX:+UseG1GC", "-Xmx256m"))) {
            assertEquals("going", target.ask("go"));
            Result result = CliRun.run("heap", pid(target), "--paths", "--from-live", "--duration", "4s", "--sample-interval", "64k",
                    "--max-paths", "1000", "--json");
            assertEquals(0, result.exit(), jdk + ": " + result);
            HeapPathsFromLiveIT.checkEachSurvivorsPath(Json.parse(result.out()));
            HeapPathsFromLiveIT.checkText(target);
        }
    }

    /** memory --native against the target's own count of each leak, and NMT's Other against jcmd's summary.diff (NativeMemoryIT's checks). */
    @ParameterizedTest
    @MethodSource("jdks")
    void memoryNativeNamesEachLeakingSiteWithTheTargetsOwnCounts(RootJdk jdk) throws Exception {
        Path library = library(jdk, "/nativeleak/nativeleak.c", "libnativeleak.so");
        try (TargetJvm target = start(jdk, NativeLeakTarget.class, List.of("-XX:NativeMemoryTracking=summary"), library.toString())
                .profiled()) {
            String pid = pid(target);
            target.ask("leak 5"); // the classes and code of the leak loaded before the window
            assertEquals(0, CliRun.run("threads", pid).exit(), "the agent is resident");
            Process cli = cli("memory", pid, "--native", "--duration", "120s", "--json");
            CompletableFuture<Result> run = result(cli);
            NativeMemoryIT.awaitRecording(target.pid(), run);
            assertEquals(NativeMemoryIT.ROUNDS, NativeMemoryIT.leak(target, NativeMemoryIT.ROUNDS) - 5);
            assertFalse(run.isDone(), "the leak made within the window");
            cli.toHandle().destroy(); // SIGTERM ends the window; the report still comes, and the JVM's exit code says SIGTERM
            Result result = run.get(60, TimeUnit.SECONDS);
            String jcmd = DebianRoots.toolOutput(jdk, target.pid(), "jcmd", pid, "VM.native_memory", "summary.diff");
            assertEquals(128 + 15, result.exit(), jdk + ": " + result);
            NativeMemoryIT.checkAgainstTheTargetsOwnCountsAndJcmd(Json.parse(result.out()), jcmd);
        }
    }

    /**
     * memory --classloaders: the leaked loader alone looks dead, with its path from the static field,
     * the dropped ones unreachable and as many as the JDK's own jcmd VM.classloaders lists, each
     * named loader's classes and metaspace its row of jcmd VM.classloader_stats (ClassLoadersIT's checks).
     */
    @ParameterizedTest
    @MethodSource("jdks")
    void memoryClassloadersNamesTheLeakedLoaderAndAgreesWithJcmd(RootJdk jdk) throws Exception {
        try (TargetJvm target = start(jdk, LoadersTarget.class, List.of("-XX:+UseG1GC", "-Xmx256m"))) {
            String pid = pid(target);
            Result result = CliRun.run("memory", pid, "--classloaders", "--json");
            String stats = DebianRoots.toolOutput(jdk, target.pid(), "jcmd", pid, "VM.classloader_stats");
            String classloaders = DebianRoots.toolOutput(jdk, target.pid(), "jcmd", pid, "VM.classloaders", "fold=false");
            assertEquals(0, result.exit(), jdk + ": " + result);
            ClassLoadersIT.checkAgainstTheTargetAndJcmd(jdk.feature(), Json.parse(result.out()), stats, classloaders);
            Result text = CliRun.run("memory", pid, "--classloaders");
            assertEquals(0, text.exit(), jdk + ": " + text);
            ClassLoadersIT.checkText(jdk.feature(), text.out());
        }
    }

    /** threads --top's USER% and SYS% against /proc, ALLOC/S against the target's own stamps, the footer against its -Xlog (ThreadsTopIT's checks). */
    @ParameterizedTest
    @MethodSource("jdks")
    void threadsTopAgreesWithTheKernelTheTargetAndItsLog(RootJdk jdk) throws Exception {
        Path log = Path.of("/tmp/top.log");
        try (TargetJvm target = start(jdk, TopTarget.class, List.of("-XX:+UseG1GC", "-Xmx128m", ThreadsTopIT.ownLog(log)))) {
            ThreadsTopIT.checkAgainstTheKernelTheTargetAndItsLog(target, seenFromHere(target, log), "-XX:+UseG1GC");
        }
    }

    /**
     * A counted loop holding safepoints up by hundreds of milliseconds: threads --top's footer counts
     * the time to reach them once (JDK 11's total safepoint time holds it too), against the target's
     * -Xlog:safepoint; pauses reports every safepoint the target logged in its window once, each
     * collector pause in its safepoint, and puts the loop first among the late threads (PausesIT's
     * checks); on JDK 11 from its older log form, with the time at the safepoint, which it does not
     * log, null.
     */
    @ParameterizedTest
    @MethodSource("jdks")
    void safepointsHeldUpByALoopInTopsFooterAndInPauses(RootJdk jdk) throws Exception {
        Path topLog = Path.of("/tmp/top.log");
        Path pausesLog = Path.of("/tmp/pauses.log");
        List<String> options = List.of("-XX:+UseG1GC", "-Xmx64m", "-XX:TieredStopAtLevel=4", "-XX:-UseCountedLoopSafepoints",
                ThreadsTopIT.ownLog(topLog), PausesIT.ownLog(pausesLog));
        // async-profiler (--late-threads, 21) chains the signal handlers and records JFR
        try (TargetJvm target = start(jdk, PausesTarget.class, options, "late").profiled()) {
            String pid = pid(target);
            Result top = CliRun.run("threads", pid, "--top", "1", "--interval", "2s", "--json");
            assertEquals(0, top.exit(), jdk + ": " + top);
            JsonNode pauses = Json.parse(top.out()).path("pauses");
            ThreadsTopIT.checkSafepoints(pauses.path("safepoints"), Files.readAllLines(seenFromHere(target, topLog)),
                    pauses.path("fromNanos").asLong(), pauses.path("toNanos").asLong());

            Result result = CliRun.run("pauses", pid, "--duration", "3s", "--json", "--late-threads");
            assertEquals(0, result.exit(), jdk + ": " + result);
            JsonNode doc = Json.parse(result.out());
            Path log = seenFromHere(target, pausesLog);
            // JDK 11 logs a safepoint in another form, without the time at it
            List<PausesIT.Logged> inWindow = jdk.feature() == 11 ? PausesIT.checkAgainstJdk11Log(doc, log) : PausesIT.checkAgainstOwnLog(doc, log);
            assertTrue(inWindow.stream().anyMatch(l -> l.reachingNanos() >= 100_000_000L), jdk + ": the loop held up a safepoint in the window: " + inWindow);
            PausesIT.checkCollectorPauses(doc, log);
            assertTrue(PausesIT.assertEachLatePauseNamesTheLoop(doc, jdk.feature() == 11) >= 1, jdk + ": " + doc);
            assertTrue(doc.path("logRemoved").asBoolean(), doc.toString());
            String outputs = DebianRoots.toolOutput(jdk, target.pid(), "jcmd", pid, "VM.log", "list");
            assertFalse(outputs.contains("/proc/self/fd/"), jdk + ": the agent's log output is taken away: " + outputs);
        }
    }

    /**
     * The SHA-256 of the traced class as the next trace session's first read finds it, once the
     * agent has seen the last CLI's connection close and ended its session (until then: busy).
     */
    private static String nextSessionsFirstRead(String pid) throws InterruptedException {
        Result next = onceNotBusy("trace", pid, TraceIT.PLACE, "--duration", "300ms", "--json");
        assertEquals(0, next.exit(), next.toString());
        JsonNode state = TraceIT.classState(Json.parse(next.out()));
        assertEquals(state.path("sha256").asText(), state.path("restoredSha256").asText(), next.out());
        return state.path("sha256").asText();
    }

    /** A CLI run, repeated while the agent has not yet ended the last CLI's session (busy), for up to 30 s. */
    private static Result onceNotBusy(String... args) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        Result run = CliRun.run(args);
        while (run.err().contains("(busy)") && System.nanoTime() < deadline) {
            Thread.sleep(100);
            run = CliRun.run(args);
        }
        return run;
    }

    private static TargetJvm start(RootJdk jdk, Class<?> main, List<String> options, String... args) {
        return TargetJvm.startWrapped(DebianRoots.ownMountNamespace(jdk.root()), classes(jdk), jdk.inside(), main, options, args);
    }

    /** The targets compiled for Java 11 into the root, once per root. */
    private static Path classes(RootJdk jdk) {
        return CLASSES.computeIfAbsent(jdk.root(), root -> DebianRoots.classes(root, Path.of(CliRun.run("agent-path").out().strip()),
                LatencyTarget.class, PathsTarget.class, NativeLeakTarget.class, TopTarget.class, PausesTarget.class,
                ExceptionsTarget.class, LoadersTarget.class, LivePathsTarget.class));
    }

    /** A target's JNI library built by gcc from a test resource into the root's classes directory: its path inside the root. */
    private static synchronized Path library(RootJdk jdk, String resource, String name) throws Exception {
        Path inside = classes(jdk).resolve(name);
        Path library = seenFromHere(jdk.root(), inside);
        if (!Files.exists(library)) {
            Path source = library.resolveSibling(name + ".c");
            try (InputStream in = DebianRootsLatencyAndMemoryIT.class.getResourceAsStream(resource)) {
                Files.copy(in, source);
            }
            Path include = Jdks.current().home().resolve("include");
            Process gcc = new ProcessBuilder("gcc", "-shared", "-fPIC", "-O1", "-I" + include, "-I" + include.resolve("linux"), "-o",
                    library.toString(), source.toString()).redirectErrorStream(true).start();
            String output = new String(gcc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertEquals(0, gcc.waitFor(), "gcc: " + output);
        }
        return inside;
    }

    /** A path of the target's mount namespace as this test reaches it (its /tmp is a tmpfs of its own). */
    private static Path seenFromHere(TargetJvm target, Path inside) {
        return Path.of("/proc", pid(target), "root").resolve(inside.toString().substring(1));
    }

    private static Path seenFromHere(Path root, Path inside) {
        return root.resolve(inside.toString().substring(1));
    }

    /** The classes the JVM counts loaded now (what ClassLoadingMXBean.getLoadedClassCount says), by its JDK's jcmd. */
    private static long loadedClasses(RootJdk jdk, TargetJvm target) {
        Map<String, Long> counters = new HashMap<>();
        for (String line : DebianRoots.toolOutput(jdk, target.pid(), "jcmd", pid(target), "PerfCounter.print").split("\n")) {
            String[] kv = line.split("=", 2);
            if (kv.length == 2 && kv[0].startsWith("java.cls.")) {
                counters.put(kv[0], Long.parseLong(kv[1].strip()));
            }
        }
        return counters.get("java.cls.loadedClasses") + counters.get("java.cls.sharedLoadedClasses")
                - counters.get("java.cls.unloadedClasses") - counters.get("java.cls.sharedUnloadedClasses");
    }

    /** The LOAD CLASS records of an hprof file that are not array classes (the JVM does not count those as loaded). */
    private static long dumpedClasses(Path hprof) throws IOException {
        try (DataInputStream in = new DataInputStream(new BufferedInputStream(Files.newInputStream(hprof), 1 << 16))) {
            in.skipNBytes(HeapDumpIT.HPROF_HEADER.length);
            int idSize = in.readInt();
            in.readLong(); // the dump's time
            Set<Long> arrayNames = new HashSet<>();
            List<Long> classNames = new ArrayList<>();
            while (true) {
                int tag;
                try {
                    tag = in.readUnsignedByte();
                } catch (EOFException end) {
                    break;
                }
                in.readInt(); // microseconds since the dump's time
                long length = Integer.toUnsignedLong(in.readInt());
                if (tag == 0x01) { // UTF8: an id and the name
                    long id = readId(in, idSize);
                    byte[] text = in.readNBytes((int) length - idSize);
                    if (text.length > 0 && text[0] == '[') {
                        arrayNames.add(id);
                    }
                } else if (tag == 0x02) { // LOAD CLASS: serial, class object id, stack trace serial, name id
                    in.readInt();
                    readId(in, idSize);
                    in.readInt();
                    classNames.add(readId(in, idSize));
                } else {
                    in.skipNBytes(length);
                }
            }
            return classNames.stream().filter(name -> !arrayNames.contains(name)).count();
        }
    }

    private static long readId(DataInputStream in, int idSize) throws IOException {
        return idSize == 8 ? in.readLong() : Integer.toUnsignedLong(in.readInt());
    }

    private static Process cli(String... args) {
        return CliProcess.start(List.of(), Jdks.current(), CliProcess.jar(), args);
    }

    /** What a CLI process printed and its exit, once it ends. */
    private static CompletableFuture<Result> result(Process cli) {
        CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> TraceIT.read(cli.getErrorStream()));
        return CompletableFuture.supplyAsync(() -> {
            String out = TraceIT.read(cli.getInputStream());
            try {
                return new Result(cli.waitFor(), out, err.join());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        });
    }

    private static String pid(TargetJvm target) {
        return Long.toString(target.pid());
    }
}
