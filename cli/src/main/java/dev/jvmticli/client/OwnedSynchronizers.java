package dev.jvmticli.client;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/**
 * The answer to {@code synchronizers}: every AbstractOwnableSynchronizer in the heap that a thread
 * owns, from one heap walk at a safepoint (as jstack -l finds them), and each thread's CPU time
 * read after the owners were.
 *
 * @param complete   false when the heap held more synchronizers than the agent looks at
 * @param instances  synchronizers in the heap, owned or not
 * @param walkMicros how long the heap walk took (the target was paused for it)
 * @param cpuAfter   the CPU time of each live thread (of those asked about) after the walk; null
 *                   when the agent could not list the threads
 */
public record OwnedSynchronizers(boolean complete, long instances, long walkMicros, List<Owned> owned, List<ThreadCpu> cpuAfter) {
    /** One synchronizer and the Java id of the thread owning it. */
    public record Owned(long ownerId, @JsonProperty("class") String className, long hash) {
        @JsonIgnore
        public LockRef lock() {
            return new LockRef(className, hash);
        }
    }

    /** A thread's CPU time, -1 when not known (always for a virtual thread). */
    public record ThreadCpu(long id, long cpuNanos) {
    }
}
