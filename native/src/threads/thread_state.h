/* java.lang.Thread.State and the JVMTI detail flags, decoded from GetThreadState bits. */
#ifndef JVMTICLI_THREAD_STATE_H
#define JVMTICLI_THREAD_STATE_H

#include <jvmti.h>

#include "json.h"

/* "NEW", "RUNNABLE", "BLOCKED", "WAITING", "TIMED_WAITING" or "TERMINATED". */
const char *thread_state_name(jint state);

/* Writes the detail flags that are set (sleeping, in_object_wait, parked, suspended,
 * interrupted, in_native) as a JSON array of names. */
void thread_state_write_flags(json_writer *w, jint state);

#endif
