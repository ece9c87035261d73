package dev.jvmticli.client;

import dev.jvmticli.attach.AgentAttacher;
import dev.jvmticli.attach.AgentSocket;
import dev.jvmticli.attach.TargetFileSystem;
import dev.jvmticli.attach.CLibrary;
import dev.jvmticli.attach.TargetArchitecture;
import dev.jvmticli.attach.TargetProcess;
import dev.jvmticli.failure.CliFailure;
import dev.jvmticli.failure.ExitCode;
import dev.jvmticli.payload.AgentLibrary;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * Opens a connection to a target's agent: the resident one if its socket answers, otherwise
 * after loading the agent through the JVM's attach listener. A second CLI run therefore never
 * loads the library again nor starts a second server.
 */
public final class AgentConnector {
    /** The options the agent is loaded with: the protocol version this client speaks. */
    public static final String AGENT_OPTIONS = "v=" + AgentClient.PROTOCOL_VERSION;
    private static final long SOCKET_POLL_MILLIS = 20;

    private final Duration timeout;

    public AgentConnector(Duration timeout) {
        this.timeout = timeout;
    }

    /**
     * A resident agent behind a socket directory that is not the JVM's (another user made it first)
     * is not spoken to: the agent is loaded, or nudged if resident, and takes its directory back
     * where it safely can (native/src/agent/socket_dir.c); where it cannot, that directory is the failure.
     */
    public AgentClient open(TargetProcess target) {
        String name = "JVM " + target.pid();
        Path socket = target.socketPath();
        AgentSocket.UntrustedDirectory untrusted = null;
        try {
            Optional<AgentClient> resident = AgentClient.connect(target, timeout);
            if (resident.isPresent()) {
                return checked(resident.get(), name);
            }
        } catch (AgentSocket.UntrustedDirectory e) {
            untrusted = e;
        }
        CLibrary.requireSupported(target);
        try {
            new AgentAttacher(timeout).load(target, placed(target, AgentLibrary.agentFor(TargetArchitecture.platform(target)), "agent library"), AGENT_OPTIONS);
        } catch (CliFailure e) {
            if (untrusted != null && e.exitCode() == ExitCode.AGENT_LOAD_FAILED) {
                untrusted.addSuppressed(e);
                throw untrusted;
            }
            throw e;
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            try {
                Optional<AgentClient> client = AgentClient.connect(target, timeout);
                if (client.isPresent()) {
                    return checked(client.get(), name);
                }
            } catch (AgentSocket.UntrustedDirectory e) {
                untrusted = e;
            }
            if (!target.isAlive()) {
                throw new CliFailure(ExitCode.NO_SUCH_PROCESS, "process " + target.pid() + " exited");
            }
            sleep();
        }
        if (untrusted != null) {
            throw untrusted;
        }
        throw new CliFailure(ExitCode.AGENT_LOAD_FAILED, "the agent loaded into " + target.pid() + " but its socket " + socket + " never appeared");
    }

    /** The profiling engine's library as the target will open it (see {@link #placed}). */
    public static Path profilerLibrary(TargetProcess target) {
        return placed(target, AgentLibrary.profilerFor(TargetArchitecture.platform(target)), "profiling library");
    }

    /** A library as the target will open it ({@link TargetFileSystem#placeLibrary}). */
    private static Path placed(TargetProcess target, AgentLibrary library, String what) {
        try {
            return TargetFileSystem.placeLibrary(target, library);
        } catch (IOException e) {
            throw new CliFailure(ExitCode.AGENT_LOAD_FAILED, "cannot place the " + what + " where JVM " + target.pid() + " can load it: "
                    + e.getMessage(), e);
        }
    }

    private static AgentClient checked(AgentClient client, String name) {
        try {
            Hello hello = client.hello();
            if (hello.protocol() != AgentClient.PROTOCOL_VERSION) {
                throw new CliFailure(ExitCode.INCOMPATIBLE_AGENT, "the agent in " + name + " speaks protocol " + hello.protocol()
                        + ", this CLI " + AgentClient.PROTOCOL_VERSION + ": unload it with jvmti-cli detach and run again");
            }
            return client;
        } catch (RuntimeException e) {
            client.close();
            throw e;
        }
    }

    private static void sleep() {
        try {
            Thread.sleep(SOCKET_POLL_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CliFailure(ExitCode.TIMEOUT, "interrupted");
        }
    }
}
