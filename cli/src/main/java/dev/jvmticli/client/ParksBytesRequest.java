package dev.jvmticli.client;

import java.util.Base64;
import java.util.Map;

/** {@code parks.bytes}: one class's new bytes, whole: its index in {@link ParksStarted#classes()} and the bytes. */
public record ParksBytesRequest(int classIndex, byte[] bytes) implements AgentRequest {
    @Override
    public String command() {
        return "parks.bytes";
    }

    @Override
    public Map<String, Object> arguments() {
        return Map.of("class", classIndex, "data", Base64.getEncoder().encodeToString(bytes));
    }
}
