package dev.jvmticli.attach;

import com.sun.tools.attach.AgentInitializationException;
import com.sun.tools.attach.AgentLoadException;
import com.sun.tools.attach.AttachNotSupportedException;
import com.sun.tools.attach.VirtualMachine;
import dev.jvmticli.client.AgentClient;
import dev.jvmticli.failure.CliFailure;
import dev.jvmticli.failure.ExitCode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeoutException;

/** Loads the agent library into a target JVM through the JDK's Attach API. */
public final class AgentAttacher {
    /** The options the agent is started with: the protocol version the CLI speaks. */
    public static final String AGENT_OPTIONS = "v=" + AgentClient.PROTOCOL_VERSION;

    private final Duration timeout;

    public AgentAttacher(Duration timeout) {
        this.timeout = timeout;
    }

    /** Attaches, loads the library, detaches; throws CliFailure with the reason otherwise. */
    public void load(TargetProcess target, Path library) {
        ExecutorService executor = Executors.newSingleThreadExecutor(runnable -> {
            Thread thread = new Thread(runnable, "jvmti-cli attach");
            thread.setDaemon(true);
            return thread;
        });
        try {
            Future<Void> attach = executor.submit(() -> {
                loadNow(target, library);
                return null;
            });
            attach.get(timeout.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new CliFailure(ExitCode.TIMEOUT, "timed out after " + timeout.toSeconds() + " s attaching to " + target.pid());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CliFailure(ExitCode.TIMEOUT, "interrupted while attaching to " + target.pid());
        } catch (ExecutionException e) {
            if (e.getCause() instanceof CliFailure failure) {
                throw failure;
            }
            throw new CliFailure(ExitCode.AGENT_LOAD_FAILED, "attach to " + target.pid() + " failed: " + e.getCause(), e.getCause());
        } finally {
            executor.shutdownNow();
        }
    }

    private static void loadNow(TargetProcess target, Path library) {
        VirtualMachine vm;
        try {
            vm = attach(target);
        } catch (AttachNotSupportedException e) {
            throw attachRefused(target, e);
        } catch (IOException e) {
            throw ioFailure(target, e);
        }
        try {
            vm.loadAgentPath(library.toString(), AGENT_OPTIONS);
        } catch (AgentInitializationException e) {
            throw new CliFailure(ExitCode.AGENT_LOAD_FAILED,
                    "the agent failed to start in " + target.pid() + ": " + AgentStatus.describe(e.returnValue()), e);
        } catch (AgentLoadException e) {
            throw loadRefused(target, e);
        } catch (IOException e) {
            throw ioFailure(target, e);
        } finally {
            try {
                vm.detach();
            } catch (IOException ignored) {
                // the attach channel is gone either way
            }
        }
    }

    /**
     * Attaches; once more after removing a dead attach socket. A JVM removes a stale
     * {@code /tmp/.java_pid<pid>} when it starts, but cannot when the file belongs to another user
     * (a JVM of a reused pid that ran as root, say, in the sticky /tmp); the JDK's client then
     * connects to the dead file and gets "Connection refused" instead of starting the attach listener.
     */
    private static VirtualMachine attach(TargetProcess target) throws AttachNotSupportedException, IOException {
        try {
            return VirtualMachine.attach(Long.toString(target.pid()));
        } catch (IOException e) {
            Path socket = target.root().resolve("tmp").resolve(".java_pid" + target.nsPid());
            if (!String.valueOf(e.getMessage()).contains("Connection refused") || !target.isAlive()
                    || !Files.deleteIfExists(socket)) {
                throw e;
            }
            return VirtualMachine.attach(Long.toString(target.pid()));
        }
    }

    private static CliFailure attachRefused(TargetProcess target, AttachNotSupportedException e) {
        String message = String.valueOf(e.getMessage());
        if (!target.isAlive()) {
            return new CliFailure(ExitCode.NO_SUCH_PROCESS, "process " + target.pid() + " exited", e);
        }
        if (message.contains("doesn't respond") || message.contains("did not respond")) {
            return new CliFailure(ExitCode.TIMEOUT, "JVM " + target.pid() + " did not answer the attach request (is -XX:+DisableAttachMechanism set, or is it hung?)", e);
        }
        return new CliFailure(ExitCode.AGENT_LOAD_FAILED, "cannot attach to " + target.pid() + ": " + message, e);
    }

    private static CliFailure loadRefused(TargetProcess target, AgentLoadException e) {
        String message = String.valueOf(e.getMessage());
        String lower = message.toLowerCase(Locale.ROOT);
        if (lower.contains("enabledynamicagentloading") || lower.contains("dynamic agent loading") || lower.contains("dynamic agents")) {
            return new CliFailure(ExitCode.DYNAMIC_AGENTS_REFUSED, "JVM " + target.pid()
                    + " refuses dynamically loaded agents: start it with -XX:+EnableDynamicAgentLoading, or load the agent at start-up with "
                    + "-agentpath:<path printed by 'jvmti-cli agent-path'>", e);
        }
        return new CliFailure(ExitCode.AGENT_LOAD_FAILED, "JVM " + target.pid() + " could not load the agent: " + message, e);
    }

    private static CliFailure ioFailure(TargetProcess target, IOException e) {
        String message = String.valueOf(e.getMessage());
        if (message.contains("Permission denied") || message.contains("Operation not permitted")) {
            return new CliFailure(ExitCode.PERMISSION_DENIED, "permission denied attaching to " + target.pid() + ": run as the JVM's user or root", e);
        }
        if (!target.isAlive()) {
            return new CliFailure(ExitCode.NO_SUCH_PROCESS, "process " + target.pid() + " exited", e);
        }
        return new CliFailure(ExitCode.AGENT_LOAD_FAILED, "attach to " + target.pid() + " failed: " + message, e);
    }
}
