package dev.jvmticli.probe;

import java.util.ArrayList;
import java.util.List;

/** A stand-in for the probe class the agent defines: it records each exit in Java, for LatencyProbesTest. */
public final class TraceProbe {
    public static final List<String> EXITS = new ArrayList<>();

    private TraceProbe() {
    }

    public static void returned(int id, long start) {
        EXITS.add("returned " + id + (System.nanoTime() >= start ? "" : " before its start"));
    }

    public static void threw(int id, long start) {
        EXITS.add("threw " + id + (System.nanoTime() >= start ? "" : " before its start"));
    }
}
