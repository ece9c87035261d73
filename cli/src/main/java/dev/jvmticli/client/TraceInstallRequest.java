package dev.jvmticli.client;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code trace.install}: put every class's new bytes in at once (or, should the JVM refuse one, none,
 * and the session ends): methods is how many probe ids the bytes use, stackedMethods how many of them
 * (the first) keep their slow calls' stacks (the others, callees, are only timed), thresholdNanos the
 * duration from which a call's stack is kept and grouped (0: none), top how many of the slowest calls are kept.
 */
public record TraceInstallRequest(int methods, int stackedMethods, long thresholdNanos, int top) implements AgentRequest {
    /** Every method keeps its slow calls' stacks. */
    public TraceInstallRequest(int methods, long thresholdNanos, int top) {
        this(methods, methods, thresholdNanos, top);
    }

    @Override
    public String command() {
        return "trace.install";
    }

    @Override
    public Map<String, Object> arguments() {
        Map<String, Object> arguments = new LinkedHashMap<>();
        arguments.put("methods", methods);
        arguments.put("stackedMethods", stackedMethods);
        arguments.put("thresholdNanos", thresholdNanos);
        arguments.put("top", top);
        return arguments;
    }
}
