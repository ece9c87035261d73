package dev.jvmticli.client;

import dev.jvmticli.attach.AgentAttacher;
import dev.jvmticli.attach.TargetFileSystem;
import dev.jvmticli.attach.TargetProcess;
import dev.jvmticli.failure.CliFailure;
import dev.jvmticli.failure.ExitCode;
import dev.jvmticli.payload.AgentLibrary;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

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

    public AgentClient open(TargetProcess target) {
        String name = "JVM " + target.pid();
        Path socket = target.socketPath();
        AgentClient resident = tryConnect(socket, name);
        if (resident != null) {
            return checked(resident, name);
        }
        new AgentAttacher(timeout).load(target, placed(target, new AgentLibrary(), "agent library"), AGENT_OPTIONS);
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            AgentClient client = tryConnect(socket, name);
            if (client != null) {
                return checked(client, name);
            }
            if (!target.isAlive()) {
                throw new CliFailure(ExitCode.NO_SUCH_PROCESS, "process " + target.pid() + " exited");
            }
            sleep();
        }
        throw new CliFailure(ExitCode.AGENT_LOAD_FAILED, "the agent loaded into " + target.pid() + " but its socket " + socket + " never appeared");
    }

    /** The profiling engine's library as the target will open it (see {@link #placed}). */
    public static Path profilerLibrary(TargetProcess target) {
        return placed(target, AgentLibrary.profiler(), "profiling library");
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

    private AgentClient tryConnect(Path socket, String name) {
        if (!Files.exists(socket)) {
            return null;
        }
        try {
            return AgentClient.connect(socket, timeout, name);
        } catch (IOException e) {
            return null; // a stale socket of a JVM that died; the new agent replaces it
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
