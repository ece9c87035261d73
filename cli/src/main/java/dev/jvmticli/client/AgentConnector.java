package dev.jvmticli.client;

import dev.jvmticli.attach.AgentAttacher;
import dev.jvmticli.attach.CLibrary;
import dev.jvmticli.attach.TargetProcess;
import dev.jvmticli.failure.CliFailure;
import dev.jvmticli.failure.ExitCode;
import dev.jvmticli.payload.AgentLibrary;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.Function;

/**
 * Opens a connection to a target's agent: the resident one if its socket answers, otherwise
 * after loading the agent through the JVM's attach listener. A second CLI run therefore never
 * loads the library again nor starts a second server.
 */
public final class AgentConnector {
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
        CLibrary.requireSupported(target);
        new AgentAttacher(timeout).load(target, placed(target, AgentLibrary::new, "agent library"));
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
        return placed(target, AgentLibrary::profiler, "profiling library");
    }

    /**
     * A library as the target will open it. A target in its own mount namespace (a container)
     * gets a copy in its own /tmp, reached through /proc/<pid>/root, and the path it knows it by.
     */
    private static Path placed(TargetProcess target, Function<Path, AgentLibrary> library, String what) {
        try {
            if (target.sharesMountNamespace()) {
                return library.apply(AgentLibrary.defaultBase()).extract();
            }
            Path tmp = target.root().resolve("tmp");
            // A link would be followed from this CLI's root, not the target's: place nothing through one.
            if (!Files.isDirectory(tmp, LinkOption.NOFOLLOW_LINKS)) {
                throw new CliFailure(ExitCode.AGENT_LOAD_FAILED, "cannot place the " + what + " in " + target.pid()
                        + "'s file system: its /tmp is not a plain directory");
            }
            Path copy = library.apply(tmp).extract();
            return Path.of("/tmp").resolve(tmp.relativize(copy));
        } catch (IOException e) {
            throw new CliFailure(ExitCode.AGENT_LOAD_FAILED, "cannot extract the " + what + ": " + e.getMessage(), e);
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
