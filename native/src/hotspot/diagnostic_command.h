/* Runs a diagnostic command (what jcmd runs: Compiler.codelist, GC.class_histogram,
 * VM.native_memory, ...) in the JVM this agent lives in, and returns its text. It asks the JVM's
 * own attach listener, /tmp/.java_pid<pid>, as jcmd does; the listener runs the command on its
 * thread and answers once it is done. The listener exists once anyone has attached (the CLI's
 * attach did); a JVM that loaded the agent at start-up and was never attached to has none, and
 * the command fails with a message saying so. */
#ifndef JVMTICLI_DIAGNOSTIC_COMMAND_H
#define JVMTICLI_DIAGNOSTIC_COMMAND_H

#include <stddef.h>

/* The command's output (after the listener's status line), malloc'd and NUL-terminated, with
 * its length in *length; NULL with error set when the listener is not there, the command failed,
 * took over timeout_seconds, or answered more than max_answer bytes. */
char *diagnostic_command_run(const char *command_line, size_t max_answer, int timeout_seconds,
                             char *error, size_t error_size, size_t *length);

#endif
