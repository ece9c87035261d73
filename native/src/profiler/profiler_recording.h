/* async-profiler's JFR output, kept in a memory file of the agent's (memfd_create; async-profiler
 * opens it as /proc/self/fd/N), so that nothing touches the target's file system, and sent to the
 * CLI as base64 pieces of a JSON array: JDK's JFR reader, in the CLI, reads it. */
#ifndef JVMTICLI_PROFILER_RECORDING_H
#define JVMTICLI_PROFILER_RECORDING_H

#include <stdint.h>
#include <sys/stat.h>

#include "json.h"

/* A new memory file named name (close-on-exec): its descriptor, or -1 with errno set. */
int profiler_recording_create(const char *name);

/* The memory file's size now, or -1 when fstat fails (then *same is 0); *same says whether fd
 * still names the file made (made: its fstat as it was created), which a close of fd by other code
 * of the process, and its number's reuse, would have undone. */
int64_t profiler_recording_bytes(int fd, const struct stat *made, int *same);

/* Writes the fields "recordingBytes" and "recording" (the file's bytes as base64 pieces) into the
 * open object; "recordingError" too when the file could not be read whole or is over max_bytes. */
void profiler_recording_write(json_writer *w, int fd, int64_t max_bytes);

/* Whether a descriptor of this process other than fd has fd's file open: 1, 0, or -1 when
 * /proc/self/fd cannot be read. async-profiler opens its JFR output at its start and closes it at
 * its stop (4.5's Recording), so 1 says the run writing this recording is still going, and 0 that
 * it ended, whatever run async-profiler may have started since. */
int profiler_recording_open_elsewhere(int fd);

#endif
