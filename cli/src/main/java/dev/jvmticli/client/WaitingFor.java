package dev.jvmticli.client;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * What a thread waits for.
 *
 * @param kind    {@code enter} (BLOCKED entering a monitor), {@code notify} (in Object.wait) or
 *                {@code park} (parked on a blocker, such as a ReentrantLock's synchronizer)
 * @param ownerId the Java id of the thread that owns it, -1 when none or unknown
 */
public record WaitingFor(String kind, @JsonProperty("class") String className, long hash, long ownerId) {
    @JsonIgnore
    public LockRef lock() {
        return new LockRef(className, hash);
    }

    @JsonIgnore
    public boolean hasOwner() {
        return ownerId >= 0;
    }
}
