package dev.jvmticli.client;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code trace.install}: put every class's new bytes in at once (or, should the JVM refuse one, none,
 * and the session ends): methods is how many probe ids the bytes use, thresholdNanos the duration
 * from which a call's stack is kept and grouped (0: none), top how many of the slowest calls are kept.
 */
public record TraceInstallRequest(int methods, long thresholdNanos, int top) implements AgentRequest {
    @Override
    public String command() {
        return "trace.install";
    }

    @Override
    public Map<String, Object> arguments() {
        Map<String, Object> arguments = new LinkedHashMap<>();
        arguments.put("methods", methods);
        arguments.put("thresholdNanos", thresholdNanos);
        arguments.put("top", top);
        return arguments;
    }
}
