package dev.jvmticli.client;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/**
 * Every ownable synchronizer a platform thread owns, as jstack -l finds them: taken with the
 * frames, in one VM operation at one safepoint ({@code stacks} asked with synchronizers).
 */
public record OwnedSynchronizers(List<Owned> owned) {
    /** One synchronizer and the Java id of the thread owning it. */
    public record Owned(long ownerId, @JsonProperty("class") String className, long hash) {
        @JsonIgnore
        public LockRef lock() {
            return new LockRef(className, hash);
        }
    }
}
