package dev.jvmticli.client;

import java.util.Base64;
import java.util.Map;

/**
 * {@code parks.start}: begin recording parks; probe is the park probe class's file, which the agent
 * defines once per JVM. The answer carries the bytes of the classes to probe ({@link ParksStarted}).
 */
public record ParksStartRequest(byte[] probe) implements AgentRequest {
    @Override
    public String command() {
        return "parks.start";
    }

    @Override
    public Map<String, Object> arguments() {
        return Map.of("probe", Base64.getEncoder().encodeToString(probe));
    }
}
