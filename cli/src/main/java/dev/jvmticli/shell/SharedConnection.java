package dev.jvmticli.shell;

import dev.jvmticli.client.AgentClient;
import dev.jvmticli.failure.CliFailure;
import dev.jvmticli.failure.ExitCode;
import java.util.function.Supplier;

/**
 * The shell's one connection to the agent, opened on first use and kept open between commands.
 * Before it is lent out it is checked with a {@code hello}: a connection the agent dropped (the
 * agent was detached, the JVM restarted its agent) or one left out of step by an abandoned request
 * is closed and opened again, attaching again only if the agent is gone.
 */
final class SharedConnection implements AutoCloseable {
    private final Supplier<AgentClient> opener;
    private volatile AgentClient client;
    private volatile boolean closed;

    SharedConnection(Supplier<AgentClient> opener) {
        this.opener = opener;
    }

    /** The open connection, checked; the caller must not close it (lend {@code borrowed()} views). */
    synchronized AgentClient client() {
        AgentClient open = client;
        if (open != null) {
            try {
                open.hello();
                return open;
            } catch (CliFailure e) {
                open.close();
                client = null;
            }
        }
        if (closed) {
            throw new CliFailure(ExitCode.FAILURE, "the shell's connection was closed");
        }
        open = opener.get();
        client = open;
        if (closed) { // closed while opening
            close();
            throw new CliFailure(ExitCode.FAILURE, "the shell's connection was closed");
        }
        return open;
    }

    /**
     * Keeps the open connection's slot in the agent while the shell waits (see
     * {@link AgentClient#keepAlive}); one that fails is closed, and the next command opens another.
     */
    void keepAlive() {
        AgentClient open = client;
        if (open == null) {
            return;
        }
        try {
            open.keepAlive();
        } catch (CliFailure e) {
            synchronized (this) {
                if (client == open) {
                    client = null;
                    open.close();
                }
            }
        }
    }

    /** Closes the connection; callable from any thread, also while a request is in flight. */
    @Override
    public void close() {
        closed = true;
        AgentClient open = client;
        client = null;
        if (open != null) {
            open.close();
        }
    }
}
