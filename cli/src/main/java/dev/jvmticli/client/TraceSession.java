package dev.jvmticli.client;

import dev.jvmticli.failure.CliFailure;
import dev.jvmticli.failure.ExitCode;
import dev.jvmticli.instrument.LatencyProbes;
import dev.jvmticli.instrument.ProbeClass;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * A tracing session from start to installed probes: the agent hands the classes' bytes, the CLI adds
 * the probes (LatencyProbes), sends the finished bytes in pieces and has them installed in one step.
 * Whatever fails after the start stops the session, which puts every class back.
 */
public final class TraceSession {
    /**
     * A probed method: its class's JVM signature, its name and descriptor; caller: for a method a
     * traced one calls (--depth 1), the caller's index among the methods, else -1.
     */
    public record TracedMethod(String classSignature, String name, String descriptor, int caller) {
        public TracedMethod(String classSignature, String name, String descriptor) {
            this(classSignature, name, descriptor, -1);
        }
    }

    /**
     * The methods probed, indexed as the report's methods (the traced ones first, then their callees);
     * those too large to probe; the start's answer.
     */
    public record Installed(List<TracedMethod> methods, List<TracedMethod> tooLarge, TraceStarted started) {
        /** How many of the methods are traced ones (the rest are their callees). */
        public int traced() {
            return (int) methods.stream().filter(m -> m.caller() < 0).count();
        }
    }

    private TraceSession() {
    }

    /**
     * Starts tracing the methods whose names methodWanted accepts in the classes classGlob matches.
     * The CLI fails with one line when no method matches, when more than the agent's bound do, or
     * when the JVM refuses the new bytes.
     */
    public static Installed install(AgentClient client, String classGlob, Predicate<String> methodWanted, long thresholdNanos, int top) {
        return install(client, classGlob, methodWanted, thresholdNanos, top, false);
    }

    /** As above; with callees, every call a traced method makes is timed as well, per callee (depth 1). */
    public static Installed install(AgentClient client, String classGlob, Predicate<String> methodWanted, long thresholdNanos, int top,
                                    boolean callees) {
        TraceStarted started = client.call(new TraceStartRequest(classGlob, ProbeClass.bytes()), TraceStarted.class);
        try {
            return installStarted(client, started, methodWanted, thresholdNanos, top, callees);
        } catch (RuntimeException e) {
            if (!(e instanceof AgentError error && error.code().equals("refused"))) {
                stopQuietly(client);
            }
            throw e;
        }
    }

    private static Installed installStarted(AgentClient client, TraceStarted started, Predicate<String> methodWanted, long thresholdNanos,
                                            int top, boolean callees) {
        List<TracedMethod> methods = new ArrayList<>();
        List<TracedMethod> tooLarge = new ArrayList<>();
        List<byte[]> rewritten = new ArrayList<>();
        List<Integer> firsts = new ArrayList<>();
        for (TraceStarted.ClassBytes c : started.classes()) {
            int first = methods.size();
            firsts.add(first);
            LatencyProbes.Rewritten r = LatencyProbes.rewrite(c.bytes(), methodWanted, i -> id(started, first + i));
            r.methods().forEach(m -> methods.add(new TracedMethod(c.name(), m.name(), m.descriptor())));
            r.tooLarge().forEach(m -> tooLarge.add(new TracedMethod(c.name(), m.name(), m.descriptor())));
            rewritten.add(r.methods().isEmpty() ? c.bytes() : r.bytes());
        }
        int traced = methods.size();
        if (callees && traced > 0) {
            // the callees' ids follow every traced method's, so the agent keeps stacks for the traced ones only
            Map<String, Integer> calleeIndex = new HashMap<>();
            for (int k = 0; k < started.classes().size(); k++) {
                TraceStarted.ClassBytes c = started.classes().get(k);
                int first = firsts.get(k);
                int next = k + 1 < firsts.size() ? firsts.get(k + 1) : traced;
                if (first == next) {
                    continue;
                }
                LatencyProbes.Rewritten r = LatencyProbes.rewrite(c.bytes(), methodWanted, i -> id(started, first + i), (caller, callee) ->
                        id(started, calleeIndex.computeIfAbsent((first + caller) + " " + callee, key -> {
                            methods.add(new TracedMethod("L" + callee.owner() + ";", callee.name(), callee.descriptor(), first + caller));
                            return methods.size() - 1;
                        })));
                if (r.methods().size() != next - first) {
                    throw new CliFailure(ExitCode.FAILURE, "a method of " + c.name() + " would pass the JVM's 64 KiB of bytecode with its calls"
                            + " timed: trace it without --depth");
                }
                rewritten.set(k, r.bytes());
            }
        }
        if (methods.isEmpty()) {
            throw new CliFailure(ExitCode.FAILURE, "no method that can be traced matches in the " + started.classes().size()
                    + " matching class(es) (constructors, static initializers, abstract, native, bridge and synthetic methods are not traced)");
        }
        if (methods.size() > started.maxMethods()) {
            throw new CliFailure(ExitCode.FAILURE, (traced < methods.size() ? traced + " methods match and call " + (methods.size() - traced)
                    + " others; a session times at most " : methods.size() + " methods match; a session traces at most ") + started.maxMethods()
                    + ": name fewer");
        }
        for (int i = 0; i < rewritten.size(); i++) {
            ClassBytesRequest.send(client, "trace", i, rewritten.get(i));
        }
        client.call(new TraceInstallRequest(methods.size(), traced, thresholdNanos, top), Map.class);
        return new Installed(List.copyOf(methods), List.copyOf(tooLarge), started);
    }

    private static int id(TraceStarted started, int index) {
        return (started.generation() << started.idBits()) | index;
    }

    /** Stops the session and reads its report. */
    public static TraceReport stop(AgentClient client) {
        return client.call("trace.stop", Map.of(), TraceReport.class);
    }

    /** Stops the session without its report, as a way out that is not the end: the agent puts the classes back. */
    public static void stopQuietly(AgentClient client) {
        client.stopQuietly("trace.stop");
    }
}
