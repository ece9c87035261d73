package dev.jvmticli.client;

import java.util.List;

/** The agent's answer to {@code hello}: who it is and what it can do. */
public record Hello(String agent, int protocol, long pid, String phase, Jvm jvm, List<String> capabilities) {
    /** The target JVM as its system properties describe it. */
    public record Jvm(String name, String vendor, String version, String specVersion, String info) {
    }
}
