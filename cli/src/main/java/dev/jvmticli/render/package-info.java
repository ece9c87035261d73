/**
 * Renderers: turn the client's records into text for people (aligned tables, jstack-style dumps)
 * or JSON for programs. They print to a {@link java.io.PrintWriter} and never talk to the agent.
 */
package dev.jvmticli.render;
