package dev.jvmticli.client;

import java.util.Map;

/**
 * {@code pauses.start}: the JVM's safepoint log for the session; with library (async-profiler's,
 * whose SHA-256 the agent checks) also async-profiler's time-to-safepoint samples; null: none.
 */
public record PausesStartRequest(String library) implements AgentRequest {
    @Override
    public String command() {
        return "pauses.start";
    }

    @Override
    public Map<String, Object> arguments() {
        return library == null ? Map.of() : Map.of("library", library);
    }
}
