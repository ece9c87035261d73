/* The profiling engine `profile` drives: async-profiler's library, loaded on the first `profile`
 * and kept for the life of the JVM (its signal handlers and hooks cannot be taken back), driven
 * through its C API (asprof.h: asprof_init, asprof_execute, asprof_error_str). A request names
 * where the file is, never what code runs: the file is opened without following a link, must be a
 * regular file nobody can write to, and its content must have the SHA-256 pinned at build time;
 * the library then loaded is that same open file (/proc/self/fd), so nothing can be swapped in
 * between the check and the load. */
#ifndef JVMTICLI_PROFILER_LIBRARY_H
#define JVMTICLI_PROFILER_LIBRARY_H

#include <jni.h>
#include <stddef.h>

/* Receives what a command prints, in chunks of any size. */
typedef void (*profiler_writer)(const char *buf, size_t size);

/* Checks the library at path and loads it unless loaded before (a file that fails the check is
 * refused even then: a request is never told a wrong file is fine). 0, or -1 with why in message. */
int profiler_library_load(const char *path, char *message, size_t cap);

/* Runs an async-profiler command ("start,event=cpu,..."), its output to writer (NULL: dropped),
 * in a local frame with room for the references async-profiler takes to every thread (jni is the
 * calling thread's, or NULL for none). NULL on success, else async-profiler's message. Only after
 * a successful load. */
const char *profiler_execute(JNIEnv *jni, const char *command, profiler_writer writer);

/* The version of async-profiler this agent is pinned to. */
const char *profiler_library_version(void);

#endif
