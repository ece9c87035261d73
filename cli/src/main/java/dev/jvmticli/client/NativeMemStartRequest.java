package dev.jvmticli.client;

import java.util.Map;

/** {@code nativemem.start}: async-profiler's native allocation recording, loaded from library (the agent checks its SHA-256), and NMT's baseline. */
public record NativeMemStartRequest(String library) implements AgentRequest {
    @Override
    public String command() {
        return "nativemem.start";
    }

    @Override
    public Map<String, Object> arguments() {
        return Map.of("library", library);
    }
}
