/**
 * Finding a target JVM and loading the agent into it: {@link dev.jvmticli.attach.TargetProcess}
 * checks a pid against {@code /proc} (exists, is a JVM, who owns it, its namespace pid and root),
 * {@link dev.jvmticli.attach.AttachListener} speaks HotSpot's attach protocol itself (java.base
 * only, so the CLI runs on a JRE), and {@link dev.jvmticli.attach.AgentAttacher} loads the agent
 * library through it, turning every failure into a {@link dev.jvmticli.failure.CliFailure} with an
 * exit code. {@link dev.jvmticli.attach.TargetFileSystem} opens and checks the target's /tmp and
 * working directory and places the library there when the target does not see the CLI's copy.
 */
package dev.jvmticli.attach;
