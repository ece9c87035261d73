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

    private static void assertRead(AgentRequest request) {
        assertTrue(AGENT_READS.containsAll(request.arguments().keySet()),
                request.command() + " sends " + request.arguments().keySet() + "; the agent reads " + AGENT_READS);
    }
}
