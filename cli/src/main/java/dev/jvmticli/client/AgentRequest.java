package dev.jvmticli.client;

import java.util.Map;

/**
 * A request to the agent, as a type with named fields: its command, and the one place its fields
 * become the arguments of the wire form, named as the agent reads them.
 */
public interface AgentRequest {
    /** The agent's command ({@code "cmd"}). */
    String command();

    /** The arguments sent with the command, by the names the agent reads. */
    Map<String, Object> arguments();
}
