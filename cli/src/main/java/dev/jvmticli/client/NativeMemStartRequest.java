package dev.jvmticli.client;

import java.util.Map;

/**
 * {@code nativemem.start}: async-profiler's native allocation recording, loaded from library (the
 * agent checks its SHA-256), stopped once it passes maxRecordingBytes (the memory it takes in the
 * target); NMT's baseline; glibc's arenas.
 */
public record NativeMemStartRequest(String library, long maxRecordingBytes) implements AgentRequest {
    @Override
    public String command() {
        return "nativemem.start";
    }

    @Override
    public Map<String, Object> arguments() {
        return Map.of("library", library, "maxRecordingBytes", maxRecordingBytes);
    }
}
