/**
 * The client API over the agent's socket: {@link dev.jvmticli.client.AgentConnector} finds or loads
 * the agent of a target and opens an {@link dev.jvmticli.client.AgentClient}, which sends
 * versioned requests (one JSON object per line) and reads the answers into the records of this
 * package. Nothing here prints; commands and renderers do.
 */
package dev.jvmticli.client;
