package dev.jvmticli.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.jvmticli.targets.PausesTarget;
import dev.jvmticli.testing.CliRun;
import dev.jvmticli.testing.CliRun.Result;
import dev.jvmticli.testing.Jdks;
import dev.jvmticli.testing.Json;
import dev.jvmticli.testing.TargetJvm;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The size of async-profiler's recording at each step of `pauses --late-threads` (issue 35: a
 * recording came back empty once, after a start and stop that both succeeded), against the memory
 * file itself as another process of the user sees it through /proc while the window runs.
 */
class PausesRecordingIT {
    private static final byte[] JFR_MAGIC = { 'F', 'L', 'R', 0 };

    /**
     * While the window runs, the agent's memory file holds the JFR header async-profiler wrote as it
     * started (its magic first), and the report's size after the start is one the file was seen to
     * have then; the size after the stop is at least the largest seen, the size read the one after
     * the stop, and the agent's descriptor named its own file at every step.
     */
    @Test
    void theRecordingsSizeAfterStartAndStopIsWhatTheFileHeld() throws Exception {
        List<String> options = List.of("-XX:+UseG1GC", "-Xmx64m");
        try (TargetJvm target = TargetJvm.start(Jdks.current(), PausesTarget.class, options).profiled()) {
            String pid = Long.toString(target.pid());
            CompletableFuture<Result> run = CompletableFuture.supplyAsync(() -> CliRun.run("pauses", pid, "--duration", "3s", "--late-threads", "--json"));
            Path file = recordingWithHeader(target.pid());
            byte[] magic = new byte[JFR_MAGIC.length];
            try (InputStream in = Files.newInputStream(file)) {
                assertEquals(magic.length, in.readNBytes(magic, 0, magic.length));
            }
            assertArrayEquals(JFR_MAGIC, magic, "async-profiler's header, written as it started");
            // its sizes until the session closes it: the header's, then no flush of samples on a target nothing holds up
            SortedSet<Long> seen = new TreeSet<>();
            while (!run.isDone()) {
                try {
                    seen.add(Files.size(file));
                } catch (NoSuchFileException closed) {
                    break;
                }
                Thread.sleep(20);
            }
            Result result = run.get(120, TimeUnit.SECONDS);
            assertEquals(0, result.exit(), result.toString());
            JsonNode late = Json.parse(result.out()).path("lateThreads");
            assertTrue(late.path("error").isNull() && late.path("stopError").isNull(), late.toString());
            long afterStart = late.path("recordingBytesAfterStart").asLong(-1);
            long afterStop = late.path("recordingBytesAfterStop").asLong(-1);
            assertTrue(seen.contains(afterStart), afterStart + " after the start, sizes seen in the window " + seen + ": " + late);
            assertTrue(afterStop >= seen.last(), afterStop + " after the stop, sizes seen in the window " + seen + ": " + late);
            assertEquals(afterStop, late.path("recordingBytes").asLong(), late.toString());
            assertTrue(late.path("recordingReplacedAt").isNull(), late.toString());
        }
    }

    /** The agent's memory file for pauses in pid, through /proc, once async-profiler has written into it. */
    private static Path recordingWithHeader(long pid) throws Exception {
        Path fds = Path.of("/proc", Long.toString(pid), "fd");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            Optional<Path> file = memoryFile(fds);
            if (file.isPresent() && Files.size(file.get()) > 0) {
                return file.get();
            }
            Thread.sleep(20);
        }
        throw new AssertionError("no written memory file 'jvmti-cli pauses' in " + fds);
    }

    private static Optional<Path> memoryFile(Path fds) throws IOException {
        try (Stream<Path> all = Files.list(fds)) {
            return all.filter(fd -> {
                try {
                    return Files.readSymbolicLink(fd).toString().startsWith("/memfd:jvmti-cli pauses");
                } catch (IOException gone) { // a descriptor closed since the listing
                    return false;
                }
            }).findFirst();
        }
    }
}
