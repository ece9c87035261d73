package dev.jvmticli.client;

import java.util.Map;

/**
 * {@code jit}: the JVM's compiled code and stubs. Made from {@link #CODE_LIST}, then told the rest by
 * name: {@code CODE_LIST.withPerfMap(true).withFollow(true)}.
 *
 * @param perfMap also write {@code /tmp/perf-<pid>.map} for perf
 * @param follow  with perfMap, keep the map current as code is compiled and unloaded
 */
public record JitRequest(boolean perfMap, boolean follow) implements AgentRequest {
    /** The code list alone. */
    public static final JitRequest CODE_LIST = new JitRequest(false, false);

    public JitRequest withPerfMap(boolean with) {
        return new JitRequest(with, follow);
    }

    public JitRequest withFollow(boolean with) {
        return new JitRequest(perfMap, with);
    }

    @Override
    public String command() {
        return "jit";
    }

    @Override
    public Map<String, Object> arguments() {
        return Map.of("perfMap", perfMap, "follow", follow);
    }
}
