package dev.jvmticli.client;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/**
 * The answer to {@code synchronizers}: every AbstractOwnableSynchronizer in the heap that a thread
 * owns, from one heap walk at a safepoint (as jstack -l finds them).
 *
 * @param complete   false when the heap held more synchronizers than the agent looks at
 * @param instances  synchronizers in the heap, owned or not
 * @param walkMicros how long the heap walk took (the target was paused for it)
 */
public record OwnedSynchronizers(boolean complete, long instances, long walkMicros, List<Owned> owned) {
    /** One synchronizer and the Java id of the thread owning it. */
    public record Owned(long ownerId, @JsonProperty("class") String className, long hash) {
        @JsonIgnore
        public LockRef lock() {
            return new LockRef(className, hash);
        }
    }
}
