package dev.jvmticli.client;

import java.util.List;

/** The answer to {@code parks.start}: each class to probe with its bytes as the JVM holds them (as {@link TraceStarted}'s). */
public record ParksStarted(List<TraceStarted.ClassBytes> classes) {
}
