/**
 * The picocli command layer: {@link dev.jvmticli.cli.JvmtiCli} is the top command and sets up
 * error handling and exit codes; each subcommand is one class that parses its options, asks the
 * agent through {@link dev.jvmticli.client.AgentClient} and hands the answer to a renderer in
 * {@code dev.jvmticli.render}. {@link dev.jvmticli.cli.CliContext} carries what commands share
 * (output streams, timeout, how to reach a target). {@code dev.jvmticli.app.Main} runs the bare
 * forms of the frequent commands ({@code threads <pid>}, ...) through {@code BareCommand}, without
 * building picocli's model, and everything else through picocli; {@code FailureReport} tells a
 * failure the same way on both paths.
 */
package dev.jvmticli.cli;
