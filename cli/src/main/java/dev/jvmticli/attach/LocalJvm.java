package dev.jvmticli.attach;

import java.time.Duration;
import java.time.Instant;

/**
 * A JVM running on this machine, as {@code /proc} shows it without attaching to it.
 *
 * @param process what {@link TargetProcess} knows of it (pid, uid, socket path)
 * @param main    its main class, {@code -jar} file or {@code -m} module as on its command line,
 *                or the launcher's name when it was not started by {@code java}
 * @param jdk     the JAVA_VERSION of the JDK it runs, from that JDK's {@code release} file; null if unknown
 * @param started when the process started; null if unknown
 */
public record LocalJvm(TargetProcess process, String main, String jdk, Instant started) {

    public long pid() {
        return process.pid();
    }

    /** How long it has been running at now; null if unknown. */
    public Duration uptime(Instant now) {
        return started == null ? null : Duration.between(started, now);
    }

    /** The last part of main: a class's simple name, or a jar's file name. */
    public String shortName() {
        String name = main.endsWith(".jar") || main.contains("/") ? main.substring(main.lastIndexOf('/') + 1)
                : main.substring(main.lastIndexOf('.') + 1);
        return name.isEmpty() ? main : name;
    }

    /**
     * Whether a jvmti-cli agent listens in it: its socket, checked to be the JVM's own
     * ({@link AgentSocket}), accepts a connection at once (nothing is sent).
     */
    public boolean agentResident() {
        return AgentSocket.resident(process, Duration.ZERO);
    }
}
