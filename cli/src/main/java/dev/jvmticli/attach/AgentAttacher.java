package dev.jvmticli.attach;

import dev.jvmticli.failure.CliFailure;
import dev.jvmticli.failure.ExitCode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Loads the agent library into a target JVM through its attach listener (HotSpot's attach protocol). */
public final class AgentAttacher {
    private static final String RETURN_CODE = "return code:";
    private static final long WAIT_PAST_DEADLINE_MILLIS = 500;

    private final Duration timeout;

    public AgentAttacher(Duration timeout) {
        this.timeout = timeout;
    }

    /**
     * Loads the library, which starts with these options (what its client asks of it: the protocol
     * version); throws CliFailure with the reason otherwise.
     */
    public void load(TargetProcess target, Path library, String options) {
        ExecutorService executor = Executors.newSingleThreadExecutor(runnable -> {
            Thread thread = new Thread(runnable, "jvmti-cli attach");
            thread.setDaemon(true);
            return thread;
        });
        try {
            long deadlineNanos = System.nanoTime() + timeout.toNanos();
            Future<Void> attach = executor.submit(() -> {
                loadNow(target, library, options, deadlineNanos);
                return null;
            });
            // past the deadline, so that a listener that never starts is reported as such
            attach.get(timeout.toMillis() + WAIT_PAST_DEADLINE_MILLIS, TimeUnit.MILLISECONDS);
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

    private static void loadNow(TargetProcess target, Path library, String options, long deadlineNanos) {
        AttachListener.Answer answer = new AttachListener(target).execute(deadlineNanos, "load", library.toString(), "true", options);
        if (answer.badVersion()) {
            throw new CliFailure(ExitCode.AGENT_LOAD_FAILED, "JVM " + target.pid() + " does not speak version 1 of the attach protocol");
        }
        String output = answer.output().strip().replace('\n', ' ');
        if (answer.status() != 0) {
            throw loadRefused(target, output.isEmpty() ? "Failed to load agent library" : "Failed to load agent library: " + output);
        }
        // The output is Agent_OnAttach's return: "return code: N" since JDK 9.
        String returned = output.startsWith(RETURN_CODE) ? output.substring(RETURN_CODE.length()).strip() : "";
        if (!returned.matches("-?[0-9]+")) {
            throw loadRefused(target, output.isEmpty() ? "Target VM did not respond" : "Failed to load agent library: " + output);
        }
        int status = Integer.parseInt(returned);
        if (status != 0) {
            throw new CliFailure(ExitCode.AGENT_LOAD_FAILED, "the agent failed to start in " + target.pid() + ": " + AgentStatus.describe(status));
        }
    }

    private static CliFailure loadRefused(TargetProcess target, String message) {
        String lower = message.toLowerCase(Locale.ROOT);
        if (lower.contains("enabledynamicagentloading") || lower.contains("dynamic agent loading") || lower.contains("dynamic agents")) {
            return new CliFailure(ExitCode.DYNAMIC_AGENTS_REFUSED, "JVM " + target.pid()
                    + " refuses dynamically loaded agents: start it with -XX:+EnableDynamicAgentLoading, or load the agent at start-up with "
                    + "-agentpath:<path printed by 'jvmti-cli agent-path'>");
        }
        return new CliFailure(ExitCode.AGENT_LOAD_FAILED, "JVM " + target.pid() + " could not load the agent: " + message);
    }
}
