/* Which JVMTI capabilities the agent asks for, and their names for the `hello` answer. */
#ifndef JVMTICLI_CAPABILITIES_H
#define JVMTICLI_CAPABILITIES_H

#include <jvmti.h>

#include "json.h"

/* JVMTI 21 (JDK 21+) adds virtual threads. The agent compiles against the JDK 17 jvmti.h, which
 * has neither the version constant nor the capability bit; both are defined in capabilities.c. */
#define JVMTICLI_JVMTI_VERSION_21 0x30150000

/* Adds every wanted capability that this JVM offers in the current phase; one missing
 * capability never fails the rest. Fills *held with what was granted. */
jvmtiError capabilities_acquire(jvmtiEnv *jvmti, jvmtiCapabilities *held);

/* Writes the names of the held capabilities as a JSON array. */
void capabilities_write(json_writer *w, const jvmtiCapabilities *held);

/* can_support_virtual_threads (JDK 21+), which the JDK 17 header does not name. */
int capabilities_has_virtual_threads(const jvmtiCapabilities *c);

#endif
