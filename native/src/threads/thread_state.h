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

/* The JVMTI state bits of java.lang.Thread.State's constant of this ordinal (a ThreadInfo's
 * state, as java.lang.management reports it). Returns 0, or -1 for an ordinal it does not have. */
int thread_state_of_java_ordinal(jint ordinal, jint *state);

#endif
