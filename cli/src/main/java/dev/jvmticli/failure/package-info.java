/** How jvmti-cli fails: {@link dev.jvmticli.failure.ExitCode}, the documented exit codes, and
 * {@link dev.jvmticli.failure.CliFailure}, a failure that becomes one line on stderr and its code. */
package dev.jvmticli.failure;
