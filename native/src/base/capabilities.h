/* Which JVMTI capabilities the agent asks for, and their names for the `hello` answer. */
#ifndef JVMTICLI_CAPABILITIES_H
#define JVMTICLI_CAPABILITIES_H

#include <jvmti.h>

#include "json.h"

/* JVMTI 21 (JDK 21+) adds virtual threads. The agent compiles against the JDK 17 jvmti.h, which
 * has neither the version constant nor the capability bit; both are defined in capabilities.c. */
#define JVMTICLI_JVMTI_VERSION_21 0x30150000

/* Adds every wanted capability that this JVM offers in the current phase; one missing
 * capability never fails the rest. Fills *held with what was granted.
 *
 * exception_events: also can_generate_exception_events (start-up only; the agent option
 * exception-events). It is not free while its events are off: HotSpot then sets
 * JvmtiExport::can_post_on_exceptions for the JVM's life (a capability added at OnLoad stays among
 * its "always" capabilities, relinquished or not), and C1 and C2 then deoptimize every compiled
 * frame an exception unwinds into (OptoRuntime::handle_exception_C_helper,
 * Runtime1::exception_handler_for_pc_helper). So it is asked for only when the user says so. */
jvmtiError capabilities_acquire(jvmtiEnv *jvmti, jvmtiCapabilities *held, int exception_events);

/* Writes the names of the held capabilities as a JSON array. */
void capabilities_write(json_writer *w, const jvmtiCapabilities *held);

/* can_support_virtual_threads (JDK 21+), which the JDK 17 header does not name. */
int capabilities_has_virtual_threads(const jvmtiCapabilities *c);

#endif
