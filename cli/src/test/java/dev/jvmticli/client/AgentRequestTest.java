package dev.jvmticli.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.jvmticli.testing.AgentArgumentNames;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The requests' wire forms: what each says by name reaches the agent under a name it reads. */
class AgentRequestTest {
    private static final Set<String> AGENT_READS = AgentArgumentNames.all();

    @Test
    void theAgentsNamesAreFoundInItsSources() {
        assertTrue(AGENT_READS.containsAll(List.of("threads", "maxDepth", "frames", "owned", "vmThreads", "locks", "summary",
                "mountedOnly", "waitingOnly", "interval", "minAge", "live")), AGENT_READS.toString());
    }

    @Test
    void stacks() {
        StacksRequest request = StacksRequest.of(List.of(1L, 2L), 7).withOwned(true).withVmThreads(true);
        assertEquals(Map.of("threads", List.of(1L, 2L), "maxDepth", 7, "frames", true, "owned", true, "vmThreads", true),
                request.arguments());
        assertEquals(Map.of("maxDepth", 1, "frames", false, "owned", false), StacksRequest.of(null, 1).withFrames(false).arguments());
        assertRead(request);
    }

    @Test
    void vthreads() {
        VthreadsRequest request = VthreadsRequest.of(List.of(3L)).withFrames(true).withMaxDepth(9).withLocks(true).withWaitingOnly(true);
        assertEquals(Map.of("threads", List.of(3L), "frames", true, "maxDepth", 9, "locks", true, "summary", false,
                "mountedOnly", false, "waitingOnly", true), request.arguments());
        assertEquals(true, VthreadsRequest.counts().arguments().get("summary"));
        assertEquals(true, VthreadsRequest.of(null).withMountedOnly(true).arguments().get("mountedOnly"));
        assertRead(request);
    }

    @Test
    void threads() {
        assertEquals(Map.of(), ThreadsRequest.JAVA_THREADS.arguments());
        assertEquals(Map.of("vmThreads", true), ThreadsRequest.JAVA_THREADS.withVmThreads(true).arguments());
        assertRead(ThreadsRequest.JAVA_THREADS.withVmThreads(true));
    }

    @Test
    void allocStart() {
        assertEquals(Map.of("interval", 512L), AllocStartRequest.sampling(512).arguments());
        AllocStartRequest live = AllocStartRequest.sampling(1024).withLive(true).withMinAge(3).withWeakRefsClearedInPauses(true)
                .withLiveBudgetBytes(1 << 20).withLiveLargestBytes(4096);
        assertEquals(Map.of("interval", 1024L, "live", true, "minAge", 3L, "weakRefsClearedInPauses", true,
                "liveBudgetBytes", (long) (1 << 20), "liveLargestBytes", 4096L), live.arguments());
        assertRead(live);
    }

    @Test
    void heapJitAndProfile() {
        assertEquals(Map.of("live", false), HeapRequest.HISTOGRAM.arguments());
        HeapRequest afterGc = HeapRequest.HISTOGRAM.withLive(true).withGcWait(java.time.Duration.ofSeconds(2));
        assertEquals(Map.of("live", true, "afterGc", true, "gcWaitMillis", 2000L), afterGc.arguments());
        JitRequest jit = JitRequest.CODE_LIST.withPerfMap(true).withFollow(true);
        assertEquals(Map.of("perfMap", true, "follow", true), jit.arguments());
        ProfileStartRequest profile = new ProfileStartRequest("/lib.so", "wall", java.time.Duration.ofMillis(50));
        assertEquals(Map.of("library", "/lib.so", "event", "wall", "interval", 50_000_000L), profile.arguments());
        HeapDumpRequest dump = new HeapDumpRequest("/var/dumps", "app.hprof", true, 1);
        assertEquals(Map.of("directory", "/var/dumps", "file", "app.hprof", "live", true, "gzLevel", 1), dump.arguments());
        assertRead(afterGc);
        assertRead(dump);
        assertRead(jit);
        assertRead(profile);
        NativeMemStartRequest nativeMemory = new NativeMemStartRequest("/lib.so", 65536);
        assertEquals(Map.of("library", "/lib.so", "maxRecordingBytes", 65536L), nativeMemory.arguments());
        assertRead(nativeMemory);
        LivePathsRequest livePaths = new LivePathsRequest(3, 30, 10_000);
        assertEquals(Map.of("paths", true, "maxPaths", 3, "maxDepth", 30, "maxObjects", 10_000L), livePaths.arguments());
        assertRead(livePaths);
        HeapPathsRequest paths = new HeapPathsRequest(List.of("a.B", "a.C[]"), 5, 20, 100_000);
        assertEquals(Map.of("classNames", List.of("a.B", "a.C[]"), "maxPaths", 5, "maxDepth", 20, "maxObjects", 100_000L), paths.arguments());
        assertRead(paths);
    }

    @Test
    void pauses() {
        assertEquals(Map.of(), new PausesStartRequest(null).arguments());
        PausesStartRequest withLateThreads = new PausesStartRequest("/lib.so");
        assertEquals(Map.of("library", "/lib.so"), withLateThreads.arguments());
        assertEquals("pauses.start", withLateThreads.command());
        assertRead(withLateThreads);
    }

    private static void assertRead(AgentRequest request) {
        assertTrue(AGENT_READS.containsAll(request.arguments().keySet()),
                request.command() + " sends " + request.arguments().keySet() + "; the agent reads " + AGENT_READS);
    }
}
