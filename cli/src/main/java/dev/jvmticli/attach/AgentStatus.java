package dev.jvmticli.attach;

/** What the agent's Agent_OnAttach return codes mean (native/src/base/agent.h, enum agent_status). */
final class AgentStatus {
    private AgentStatus() {
    }

    static String describe(int status) {
        return switch (status) {
            case 101 -> "no JVMTI environment of version 11 (is the target older than JDK 11?)";
            case 102 -> "the JVM granted none of the capabilities it listed as potential";
            case 103 -> "its socket directory /tmp/.jvmti-cli-<uid> is not a private directory of the JVM's user";
            case 104 -> "it could not create its socket";
            case 105 -> "it could not start its thread";
            case 106 -> "it refused its options (an agent accepts v=N, its protocol version, and at start-up only exception-events)";
            case 107 -> "it could not enable the VM start-up event";
            case 108 -> "it is still stopping after a detach: try again in a moment";
            default -> "return code " + status;
        };
    }
}
