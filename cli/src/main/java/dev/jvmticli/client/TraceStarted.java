package dev.jvmticli.client;

import java.util.List;

/**
 * The answer to {@code trace.start}: the session's generation (the high bits of every probe id,
 * idBits the low bits' width), the most methods a session may probe, the JDK classes the glob matched
 * but left out (a wildcard never reaches the JDK), and each class with its bytes and their SHA-256.
 */
public record TraceStarted(int generation, int idBits, int maxMethods, long skippedJdkClasses, List<ClassBytes> classes) {
    /** One class: its JVM signature ({@code Lp/C;}), its bytes' SHA-256 and the bytes (base64 on the wire). */
    public record ClassBytes(String name, String sha256, byte[] bytes) {
    }
}
