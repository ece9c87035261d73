package dev.jvmticli.client;

import dev.jvmticli.failure.CliFailure;
import dev.jvmticli.failure.ExitCode;

/** The agent answered a request with an error. */
public final class AgentError extends CliFailure {
    private final String code;
    private final String agentMessage;

    public AgentError(String code, String message) {
        super(ExitCode.FAILURE, "agent: " + message + " (" + code + ")");
        this.code = code;
        this.agentMessage = message;
    }

    /** The agent's message, as it gave it. */
    public String agentMessage() {
        return agentMessage;
    }

    /** The agent's error code, such as {@code bad_request} or {@code jvmti_error}. */
    public String code() {
        return code;
    }
}
