package dev.jvmticli.client;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;

/** A monitor a thread owns, entered by the frame at depth (0 is the top frame; -1 by JNI). */
public record LockedMonitor(@JsonProperty("class") String className, long hash, int depth) {
    @JsonIgnore
    public LockRef lock() {
        return new LockRef(className, hash);
    }
}
