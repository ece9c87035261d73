/**
 * The picocli command layer: {@link dev.jvmticli.cli.JvmtiCli} is the top command and sets up
 * error handling and exit codes; each subcommand is one class that parses its options, asks the
 * agent through {@link dev.jvmticli.client.AgentClient} and hands the answer to a renderer in
 * {@code dev.jvmticli.render}. {@link dev.jvmticli.cli.CliContext} carries what commands share
 * (output streams, timeout, how to reach a target).
 */
package dev.jvmticli.cli;
