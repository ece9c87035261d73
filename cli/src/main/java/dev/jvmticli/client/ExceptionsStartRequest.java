package dev.jvmticli.client;

import java.util.Base64;
import java.util.Map;

/**
 * {@code exceptions.start}: begin an instrumentation session over {@code java.lang.Throwable} (the
 * agent names the class); the answer is a {@link TraceStarted} with Throwable's bytes. probe is the
 * probe class's file, which the agent defines once per JVM. The session then goes on as trace's:
 * trace.bytes, trace.install, and exceptions.stop for the {@link ExceptionsReport}.
 */
public record ExceptionsStartRequest(byte[] probe) implements AgentRequest {
    @Override
    public String command() {
        return "exceptions.start";
    }

    @Override
    public Map<String, Object> arguments() {
        return Map.of("probe", Base64.getEncoder().encodeToString(probe));
    }
}
