/* A class of probe methods for bytecode that a session instruments: the client sends its bytes,
 * the agent defines it in the boot loader (so every class sees it) once per JVM and binds its
 * native methods to itself. A class of the JDK, in a named module, reads only the modules it
 * declares: it is made to read the probe's (the boot loader's unnamed module) before its new
 * bytes call it. Only the agent thread calls this module. */
#ifndef JVMTICLI_PROBE_CLASS_H
#define JVMTICLI_PROBE_CLASS_H

#include <jni.h>

#include "answer.h"

/* The probe class named internal_name ("p/C"), defined by an earlier session of this JVM or now
 * from the request's base64 field `field` (at most max_bytes), with its natives bound: a global
 * ref, or NULL with ctx answered. It is initialized before it is returned: no probe waits for that. */
jclass probe_class_bind(command_ctx *ctx, const char *internal_name, const char *field, long max_bytes,
                        const JNINativeMethod *natives, int native_count);

/* Makes klass's module read the probe class's. 0, or -1 with ctx answered. */
int probe_class_readable_from(command_ctx *ctx, jclass probe, jclass klass);

#endif
