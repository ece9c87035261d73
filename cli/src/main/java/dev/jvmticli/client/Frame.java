package dev.jvmticli.client;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * A resolved stack frame.
 *
 * @param line the source line; -1 when unknown, -2 in a native method
 */
public record Frame(@JsonProperty("class") String className, String method, String file, int line,
                    @JsonProperty("native") boolean nativeMethod) {
}
