package dev.jvmticli.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.jvmticli.targets.NativeLeakTarget;
import dev.jvmticli.testing.CliRun;
import dev.jvmticli.testing.CliRun.Result;
import dev.jvmticli.testing.Jdks;
import dev.jvmticli.testing.Json;
import dev.jvmticli.testing.TargetJvm;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * `memory --native` against a target that knows what it leaked, on every installed JDK: a direct
 * ByteBuffer, an Unsafe.allocateMemory block and its JNI library's malloc per round, and a block
 * freed at once. Each site named, with its count and bytes from the target's own; NMT's change of
 * "Other" (where the JVM counts Unsafe's memory) against the leak and against jcmd's summary.diff
 * right after.
 */
class NativeMemoryIT {
    static final int ROUNDS = 200;
    /** What NMT adds to each os::malloc block (its header and footer) and malloc's alignment, at most. */
    static final int BLOCK_OVERHEAD = 64;

    static Stream<Jdks.Jdk> jdks() {
        return Jdks.stream();
    }

    @ParameterizedTest
    @MethodSource("jdks")
    void namesEachLeakingSiteWithTheTargetsOwnCountsAndNmtAgreesWithJcmd(Jdks.Jdk jdk) throws Exception {
        Path work = Files.createTempDirectory("nativemem-it");
        try (TargetJvm target = TargetJvm.start(jdk, NativeLeakTarget.class, List.of("-XX:NativeMemoryTracking=summary"),
                nativeLibrary(jdk, work).toString()).profiled()) {
            target.ask("leak 5"); // the classes and code of the leak loaded before the window
            assertEquals(0, CliRun.run("threads", Long.toString(target.pid())).exit(), "the agent is resident");
            CompletableFuture<Result> run = CompletableFuture.supplyAsync(
                    () -> CliRun.run("memory", Long.toString(target.pid()), "--native", "--duration", "15s", "--json"));
            awaitRecording(target.pid(), run);
            int rounds = leak(target, ROUNDS) - 5;
            assertEquals(ROUNDS, rounds);
            assertFalse(run.isDone(), "the leak made within the window");
            Result result = run.get(60, TimeUnit.SECONDS);
            String jcmd = jcmd(jdk, target.pid(), "VM.native_memory", "summary.diff");
            assertEquals(0, result.exit(), result.toString());
            checkAgainstTheTargetsOwnCountsAndJcmd(Json.parse(result.out()), jcmd);
        } finally {
            try (Stream<Path> files = Files.list(work)) {
                for (Path file : files.toList()) {
                    Files.delete(file);
                }
            }
            Files.delete(work);
        }
    }

    /**
     * A report of a window in which the target leaked {@link #ROUNDS} rounds: each site with the
     * target's own counts and bytes, NMT's change of "Other" against the leak and against jcmd's
     * VM.native_memory summary.diff taken right after the window (jcmd).
     */
    static void checkAgainstTheTargetsOwnCountsAndJcmd(JsonNode doc, String jcmd) {
        JsonNode direct = site(doc, "dev.jvmticli.targets.NativeLeakTarget.leakDirect:");
        assertHeld(direct, NativeLeakTarget.DIRECT_BYTES, BLOCK_OVERHEAD);
        // JDK 25's Unsafe_AllocateMemory0 has no frame of its own: the JVM's malloc is all there is to name
        assertTrue(List.of("Unsafe_AllocateMemory0 (libjvm.so)", "os::malloc (libjvm.so)").contains(direct.path("via").asText()), direct.toString());
        JsonNode unsafe = site(doc, "dev.jvmticli.targets.NativeLeakTarget.leakUnsafe:");
        assertHeld(unsafe, NativeLeakTarget.UNSAFE_BYTES, BLOCK_OVERHEAD);
        JsonNode library = site(doc, "dev.jvmticli.targets.NativeLeakTarget.nativeMalloc");
        assertHeld(library, NativeLeakTarget.NATIVE_BYTES, 0); // malloc itself: nothing of the JVM's around it
        assertEquals("Java_dev_jvmticli_targets_NativeLeakTarget_nativeMalloc (libnativeleak.so)", library.path("via").asText());
        JsonNode churn = site(doc, "dev.jvmticli.targets.NativeLeakTarget.churn:");
        assertEquals(ROUNDS, churn.path("allocations").asLong(), churn.toString());
        assertEquals(ROUNDS, churn.path("frees").asLong(), churn.toString());
        assertEquals(0, churn.path("heldBytes").asLong(), churn.toString());

        // NMT counts Unsafe's blocks (direct buffers' too) as Other; the JNI library's malloc it never sees
        long leakedThroughTheJvm = (long) ROUNDS * (NativeLeakTarget.DIRECT_BYTES + NativeLeakTarget.UNSAFE_BYTES);
        JsonNode other = category(doc.path("nativeMemoryTracking"), "Other");
        long change = other.path("committedChangeBytes").asLong();
        // NMT counts the sizes asked for, in whole KiB (the baseline's and the end's each rounded)
        assertTrue(change >= leakedThroughTheJvm - 2048 && change <= leakedThroughTheJvm + (1 << 20), other + " against " + leakedThroughTheJvm);
        Matcher jcmdOther = Pattern.compile("(?m)^-\\s+Other \\(reserved=\\d+KB(?: [+-]\\d+KB)?, committed=(\\d+)KB( [+-]\\d+KB)?\\)").matcher(jcmd);
        assertTrue(jcmdOther.find(), jcmd);
        long jcmdCommitted = Long.parseLong(jcmdOther.group(1)) * 1024;
        assertTrue(Math.abs(jcmdCommitted - other.path("committedBytes").asLong()) <= 64 * 1024,
                "jcmd right after: " + jcmdCommitted + ", memory --native: " + other);
    }

    @ParameterizedTest
    @MethodSource("jdks")
    void saysNmtIsOffAndStillNamesTheSites(Jdks.Jdk jdk) throws Exception {
        Path work = Files.createTempDirectory("nativemem-it");
        try (TargetJvm target = TargetJvm.start(jdk, NativeLeakTarget.class, List.of(), nativeLibrary(jdk, work).toString()).profiled()) {
            target.ask("leak 5");
            CompletableFuture<Result> run = CompletableFuture.supplyAsync(
                    () -> CliRun.run("memory", Long.toString(target.pid()), "--native", "--duration", "15s"));
            awaitRecording(target.pid(), run);
            leak(target, 50);
            assertFalse(run.isDone(), "the leak made within the window");
            Result result = run.get(60, TimeUnit.SECONDS);
            assertEquals(0, result.exit(), result.toString());
            assertTrue(result.out().contains("Native allocation sites, most not freed first:"), result.out());
            assertTrue(result.out().matches("(?s).*\\n *146.5 KiB +50 +146.5 KiB +50 +0 B +dev\\.jvmticli\\.targets\\.NativeLeakTarget\\.nativeMalloc via "
                    + "Java_dev_jvmticli_targets_NativeLeakTarget_nativeMalloc \\(libnativeleak\\.so\\)\\n.*"), result.out());
            assertTrue(result.out().contains("native memory tracking is off: start the JVM with -XX:NativeMemoryTracking=summary"), result.out());
            Result alone = CliRun.run("memory", Long.toString(target.pid()), "--duration", "1s");
            assertEquals(2, alone.exit(), alone.toString());
            assertTrue(alone.err().startsWith("jvmti-cli: --duration and --max-recording are options of memory --native, --top of memory --native and --classloaders\n"), alone.toString());
        } finally {
            try (Stream<Path> files = Files.list(work)) {
                for (Path file : files.toList()) {
                    Files.delete(file);
                }
            }
            Files.delete(work);
        }
    }

    /**
     * The library mallocs 3,000 blocks of 16,000 bytes and writes them (48 MB) from a Java thread:
     * the other arenas' resident bytes grow by at least that, and by not much more; and the
     * recording, bounded at 64 KiB, is stopped before the window ends, and says so.
     */
    @ParameterizedTest
    @MethodSource("jdks")
    void theArenasHoldTheLibrarysMallocAndTheRecordingStopsAtItsBound(Jdks.Jdk jdk) throws Exception {
        Path work = Files.createTempDirectory("nativemem-it");
        int blocks = 3000;
        long written = (long) blocks * NativeLeakTarget.ARENA_BLOCK_BYTES;
        try (TargetJvm target = TargetJvm.start(jdk, NativeLeakTarget.class, List.of(), nativeLibrary(jdk, work).toString()).profiled()) {
            target.ask("leak 5");
            CompletableFuture<Result> run = CompletableFuture.supplyAsync(
                    () -> CliRun.run("memory", Long.toString(target.pid()), "--native", "--duration", "10s", "--max-recording", "64k", "--json"));
            awaitRecording(target.pid(), run);
            String answer = target.ask("arena " + blocks);
            while (!answer.startsWith("arena ")) { // the JNI checker's table of signal handlers may come first
                answer = target.awaitLine("arena ", java.time.Duration.ofSeconds(30));
            }
            assertEquals("arena " + blocks, answer);
            assertFalse(run.isDone(), "the blocks made within the window");
            Result result = run.get(60, TimeUnit.SECONDS);
            assertEquals(0, result.exit(), result.toString());
            JsonNode doc = Json.parse(result.out());
            long grew = doc.path("arenasAtEnd").path("heapResident").asLong() - doc.path("arenasAtStart").path("heapResident").asLong();
            assertTrue(grew >= written && grew <= written + (16L << 20), "the other arenas grew by " + grew + " for " + written + " written: " + doc);
            assertTrue(doc.path("arenasAtEnd").path("arenas").asLong() >= 1, doc.toString());
            long capped = doc.path("recordingCappedAfterNanos").asLong();
            assertTrue(capped > 0 && capped < doc.path("durationNanos").asLong(), "stopped within the window: " + doc);
            assertTrue(doc.path("recordingBytes").asLong() < 2L << 20, doc.toString());
        } finally {
            try (Stream<Path> files = Files.list(work)) {
                for (Path file : files.toList()) {
                    Files.delete(file);
                }
            }
            Files.delete(work);
        }
    }

    /** Has the target leak that many rounds; how many it made in all (the JNI checker's table of signal handlers may come first). */
    static int leak(TargetJvm target, int rounds) {
        String answer = target.ask("leak " + rounds);
        while (!answer.startsWith("rounds ")) {
            answer = target.awaitLine("rounds ", java.time.Duration.ofSeconds(30));
        }
        return Integer.parseInt(answer.substring("rounds ".length()));
    }

    /** Every block kept: ROUNDS allocations, none freed, each of size bytes plus at most overhead. */
    static void assertHeld(JsonNode site, long size, long overhead) {
        assertEquals(ROUNDS, site.path("allocations").asLong(), site.toString());
        assertEquals(ROUNDS, site.path("held").asLong(), site.toString());
        long held = site.path("heldBytes").asLong();
        assertTrue(held >= ROUNDS * size && held <= ROUNDS * (size + overhead), site.toString());
    }

    /** The site of that prefix that allocated most (the JIT's own allocations on the same thread are sites of their own, by what called malloc). */
    static JsonNode site(JsonNode doc, String prefix) {
        JsonNode most = null;
        for (JsonNode site : doc.path("sites")) {
            if (site.path("site").asText().startsWith(prefix)
                    && (most == null || site.path("allocatedBytes").asLong() > most.path("allocatedBytes").asLong())) {
                most = site;
            }
        }
        assertNotNull(most, "no site " + prefix + " in " + doc.path("sites"));
        return most;
    }

    static JsonNode category(JsonNode nmt, String name) {
        for (JsonNode category : nmt.path("categories")) {
            if (category.path("name").asText().equals(name)) {
                return category;
            }
        }
        throw new AssertionError("no NMT category " + name + " in " + nmt);
    }

    /**
     * Waits until async-profiler records: its timer thread, which it starts last, once its malloc hooks
     * are in (JFR output starts one), is among the target's threads.
     */
    static void awaitRecording(long pid, CompletableFuture<Result> run) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            assertFalse(run.isDone(), () -> "the window ended before it was seen: " + run.join());
            try (Stream<Path> tasks = Files.list(Path.of("/proc/" + pid + "/task"))) {
                for (Path task : tasks.toList()) {
                    try {
                        if (Files.readString(task.resolve("comm")).startsWith("Async-profiler")) {
                            return;
                        }
                    } catch (IOException endedMeanwhile) {
                        // a thread that ended while listed
                    }
                }
            }
            Thread.sleep(20);
        }
        throw new AssertionError("async-profiler never started recording");
    }

    private static Path nativeLibrary(Jdks.Jdk jdk, Path work) throws Exception {
        Path source = work.resolve("nativeleak.c");
        try (InputStream in = NativeMemoryIT.class.getResourceAsStream("/nativeleak/nativeleak.c")) {
            assertNotNull(in, "nativeleak.c on the test class path");
            Files.copy(in, source);
        }
        Path library = work.resolve("libnativeleak.so");
        Process gcc = new ProcessBuilder("gcc", "-shared", "-fPIC", "-O1", "-I" + jdk.home().resolve("include"),
                "-I" + jdk.home().resolve("include/linux"), "-o", library.toString(), source.toString()).redirectErrorStream(true).start();
        String output = new String(gcc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, gcc.waitFor(), "gcc: " + output);
        return library;
    }

    private static String jcmd(Jdks.Jdk jdk, long pid, String... command) throws Exception {
        List<String> line = new java.util.ArrayList<>(List.of(jdk.home().resolve("bin/jcmd").toString(), Long.toString(pid)));
        line.addAll(List.of(command));
        Process jcmd = new ProcessBuilder(line).redirectErrorStream(true).start();
        String output = new String(jcmd.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, jcmd.waitFor(), output);
        return output;
    }
}
