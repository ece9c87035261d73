/* Which JVMTI capabilities the agent asks for, and their names for the `hello` answer. */
#ifndef JVMTICLI_CAPABILITIES_H
#define JVMTICLI_CAPABILITIES_H

#include <jvmti.h>

#include "json.h"

/* Adds every wanted capability that this JVM offers in the current phase; one missing
 * capability never fails the rest. Fills *held with what was granted. */
jvmtiError capabilities_acquire(jvmtiEnv *jvmti, jvmtiCapabilities *held);

/* Writes the names of the held capabilities as a JSON array. */
void capabilities_write(json_writer *w, const jvmtiCapabilities *held);

#endif
