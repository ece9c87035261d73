package dev.jvmticli.client;

import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code trace.start}: begin a tracing session over the loaded classes whose binary names the glob
 * matches ({@code *}: any run of characters); the answer carries each class's bytes as the JVM holds
 * them ({@link TraceStarted}). probe is the probe class's file, which the agent defines once per JVM.
 */
public record TraceStartRequest(String classes, byte[] probe) implements AgentRequest {
    @Override
    public String command() {
        return "trace.start";
    }

    @Override
    public Map<String, Object> arguments() {
        Map<String, Object> arguments = new LinkedHashMap<>();
        arguments.put("classes", classes);
        arguments.put("probe", Base64.getEncoder().encodeToString(probe));
        return arguments;
    }
}
