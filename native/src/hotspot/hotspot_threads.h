/* The OS thread behind each java.lang.Thread as HotSpot records it: java.lang.Thread.eetop holds
 * the JavaThread, whose OSThread holds the kernel's thread id and the state jstack prints after
 * it. The field offsets come from HotSpot's own table (vm_structs.h), so nothing is assumed of
 * a build's layout. */
#ifndef JVMTICLI_HOTSPOT_THREADS_H
#define JVMTICLI_HOTSPOT_THREADS_H

#include <jni.h>
#include <jvmti.h>
#include <stddef.h>

#include "native_ids.h"

/* Fills out[i] for threads[i], whose Java id is ids[i]: zeroed where the thread has no JavaThread
 * (not started, or ended meanwhile). What does not change while a thread lives (its OSThread and
 * nid) is remembered from one call to the next and read again only for a thread whose eetop no
 * longer holds the JavaThread it was read from; the OS thread state is read every time. Returns
 * 0, or -1 when this JVM does not describe those fields (not HotSpot, or another build): then out
 * is untouched. */
int hotspot_threads_read(JNIEnv *jni, const jthread *threads, const jlong *ids, size_t count, native_thread *out);

/* The same facts of HotSpot Threads by address (JavaThreads or not): out[i] is zeroed where
 * threads[i]'s OSThread could not be read. Nothing here proves a thread lived through the reads:
 * the caller does. Returns 0, or -1 as hotspot_threads_read does. */
int hotspot_threads_read_native(JNIEnv *jni, const uintptr_t *threads, size_t count, native_thread *out);

/* Remembers, of the threads the last hotspot_threads_read was asked about (their Java ids and its
 * answer, since checked by native_ids_keep_own), which nids are proven tasks of this process:
 * while a thread keeps its JavaThread, later reads mark its nid own_task. */
void hotspot_threads_confirm(const jlong *ids, const native_thread *threads, size_t count);

/* Forgets what hotspot_threads_read remembered (agent shutdown). */
void hotspot_threads_forget(void);

#endif
