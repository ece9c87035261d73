package dev.jvmticli.client;

import java.time.Duration;
import java.util.Map;

/**
 * {@code profile.start}: async-profiler, loaded from library (the agent checks its SHA-256), sampling
 * event ({@code cpu}, {@code wall}) once per interval.
 */
public record ProfileStartRequest(String library, String event, Duration interval) implements AgentRequest {
    @Override
    public String command() {
        return "profile.start";
    }

    @Override
    public Map<String, Object> arguments() {
        return Map.of("library", library, "event", event, "interval", interval.toNanos());
    }
}
