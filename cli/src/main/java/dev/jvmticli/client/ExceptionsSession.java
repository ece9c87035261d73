package dev.jvmticli.client;

import dev.jvmticli.failure.CliFailure;
import dev.jvmticli.failure.ExitCode;
import dev.jvmticli.instrument.ExceptionProbes;
import dev.jvmticli.instrument.ProbeClass;
import java.util.Map;

/**
 * An {@code exceptions} session from start to installed probe: the agent hands Throwable's bytes, the
 * CLI adds the probe to its constructors (ExceptionProbes) and has them installed as trace's classes
 * are. Whatever fails after the start stops the session, which puts Throwable back.
 */
public final class ExceptionsSession {
    private ExceptionsSession() {
    }

    /** Starts counting; returns the start's answer (Throwable's SHA-256 as read). */
    public static TraceStarted install(AgentClient client) {
        TraceStarted started = client.call(new ExceptionsStartRequest(ProbeClass.bytes()), TraceStarted.class);
        try {
            TraceStarted.ClassBytes throwable = started.classes().get(0);
            ExceptionProbes.Rewritten rewritten = ExceptionProbes.rewrite(throwable.bytes(), started.generation() << started.idBits());
            if (rewritten.constructors() == 0) {
                throw new CliFailure(ExitCode.FAILURE, "java.lang.Throwable has no constructor to probe in this JVM");
            }
            ClassBytesRequest.send(client, "trace", 0, rewritten.bytes());
            client.call(new TraceInstallRequest(rewritten.constructors(), 0, 1), Map.class);
            return started;
        } catch (RuntimeException e) {
            if (!(e instanceof AgentError error && error.code().equals("refused"))) {
                client.stopQuietly("exceptions.stop");
            }
            throw e;
        }
    }

    public static ExceptionsReport stop(AgentClient client) {
        return client.call("exceptions.stop", Map.of(), ExceptionsReport.class);
    }
}
