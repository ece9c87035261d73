/**
 * Finding a target JVM and loading the agent into it: {@link dev.jvmticli.attach.TargetProcess}
 * checks a pid against {@code /proc} (exists, is a JVM, who owns it, its namespace pid and root)
 * and {@link dev.jvmticli.attach.AgentAttacher} loads the agent library through the JDK's Attach
 * API, turning every failure into a {@link dev.jvmticli.failure.CliFailure} with an exit code.
 */
package dev.jvmticli.attach;
