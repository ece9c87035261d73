package dev.jvmticli.client;

import java.util.List;

/** The agent's answer to {@code hello}: who it is, what it can do, and the commands it answers. */
public record Hello(String agent, int protocol, long pid, String phase, Jvm jvm, List<String> capabilities, List<String> commands) {
    /** The target JVM as its system properties describe it. */
    public record Jvm(String name, String vendor, String version, String specVersion, String info) {
    }
}
