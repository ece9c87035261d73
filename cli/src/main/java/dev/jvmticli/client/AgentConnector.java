package dev.jvmticli.client;

import dev.jvmticli.attach.AgentAttacher;
import dev.jvmticli.attach.AgentSocket;
import dev.jvmticli.attach.TargetProcess;
import dev.jvmticli.failure.CliFailure;
import dev.jvmticli.failure.ExitCode;
import dev.jvmticli.payload.AgentLibrary;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
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

    /**
     * A resident agent behind a socket directory that is not the JVM's (another user made it first)
     * is not spoken to: the agent is loaded, or nudged if resident, and takes its directory back
     * where it safely can (native/src/socket_dir.c); where it cannot, that directory is the failure.
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
        try {
            new AgentAttacher(timeout).load(target, placed(target, AgentLibrary::new, "agent library"));
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
