package dev.jvmticli.testing;

import dev.jvmticli.payload.AgentLibrary;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;

/** How a test target gets its agent: by live attach on first use, or with -agentpath: at start-up. */
public enum AgentMode {
    LIVE_ATTACH,
    STARTUP;

    /** The JVM options that start a target in this mode. */
    public List<String> jvmOptions() {
        if (this == LIVE_ATTACH) {
            return List.of();
        }
        try {
            return List.of("-agentpath:" + new AgentLibrary().extract() + "=v=7");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
