package dev.jvmticli.client;

import dev.jvmticli.failure.CliFailure;
import dev.jvmticli.failure.ExitCode;
import dev.jvmticli.instrument.LatencyProbes;
import dev.jvmticli.instrument.ProbeClass;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * A tracing session from start to installed probes: the agent hands the classes' bytes, the CLI adds
 * the probes (LatencyProbes), sends the finished bytes in pieces and has them installed in one step.
 * Whatever fails after the start stops the session, which puts every class back.
 */
public final class TraceSession {
    /** Raw bytes per trace.bytes piece: its base64 stays well inside the agent's 64 KiB request line. */
    static final int PIECE = 30 * 1024;

    /** A probed method: its class's JVM signature, its name and descriptor. */
    public record TracedMethod(String classSignature, String name, String descriptor) {
    }

    /** The methods probed, indexed as the report's methods; those too large to probe; the start's answer. */
    public record Installed(List<TracedMethod> methods, List<TracedMethod> tooLarge, TraceStarted started) {
    }

    private TraceSession() {
    }

    /**
     * Starts tracing the methods whose names methodWanted accepts in the classes classGlob matches.
     * The CLI fails with one line when no method matches, when more than the agent's bound do, or
     * when the JVM refuses the new bytes.
     */
    public static Installed install(AgentClient client, String classGlob, Predicate<String> methodWanted, long thresholdNanos, int top) {
        TraceStarted started = client.call(new TraceStartRequest(classGlob, ProbeClass.bytes()), TraceStarted.class);
        try {
            return installStarted(client, started, methodWanted, thresholdNanos, top);
        } catch (RuntimeException e) {
            if (!(e instanceof AgentError error && error.code().equals("refused"))) {
                stopQuietly(client);
            }
            throw e;
        }
    }

    private static Installed installStarted(AgentClient client, TraceStarted started, Predicate<String> methodWanted, long thresholdNanos,
                                            int top) {
        List<TracedMethod> methods = new ArrayList<>();
        List<TracedMethod> tooLarge = new ArrayList<>();
        List<byte[]> rewritten = new ArrayList<>();
        for (TraceStarted.ClassBytes c : started.classes()) {
            int first = methods.size();
            LatencyProbes.Rewritten r = LatencyProbes.rewrite(c.bytes(), methodWanted, i -> (started.generation() << started.idBits()) | (first + i));
            r.methods().forEach(m -> methods.add(new TracedMethod(c.name(), m.name(), m.descriptor())));
            r.tooLarge().forEach(m -> tooLarge.add(new TracedMethod(c.name(), m.name(), m.descriptor())));
            rewritten.add(r.methods().isEmpty() ? c.bytes() : r.bytes());
        }
        if (methods.isEmpty()) {
            throw new CliFailure(ExitCode.FAILURE, "no method that can be traced matches in the " + started.classes().size()
                    + " matching class(es) (constructors, static initializers, abstract, native, bridge and synthetic methods are not traced)");
        }
        if (methods.size() > started.maxMethods()) {
            throw new CliFailure(ExitCode.FAILURE, methods.size() + " methods match; a session traces at most " + started.maxMethods()
                    + ": name fewer");
        }
        for (int i = 0; i < rewritten.size(); i++) {
            send(client, i, rewritten.get(i));
        }
        client.call(new TraceInstallRequest(methods.size(), thresholdNanos, top), Map.class);
        return new Installed(List.copyOf(methods), List.copyOf(tooLarge), started);
    }

    /** One class's bytes, piece by piece. */
    public static void send(AgentClient client, int classIndex, byte[] bytes) {
        for (int offset = 0; offset < bytes.length; offset += PIECE) {
            byte[] piece = Arrays.copyOfRange(bytes, offset, Math.min(bytes.length, offset + PIECE));
            client.call(new TraceBytesRequest(classIndex, bytes.length, offset, Base64.getEncoder().encodeToString(piece)), Map.class);
        }
    }

    /** Stops the session and reads its report. */
    public static TraceReport stop(AgentClient client) {
        return client.call("trace.stop", Map.of(), TraceReport.class);
    }

    private static void stopQuietly(AgentClient client) {
        try {
            client.call("trace.stop", Map.of(), Map.class);
        } catch (RuntimeException alreadyGone) {
            // the session is gone already, or the connection: the agent puts the classes back either way
        }
    }
}
