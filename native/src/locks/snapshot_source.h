/* The "snapshot" source of lock facts (locks.h): after a live attach on JDK 25+, when owned
 * monitors are asked for, a ThreadSnapshot per thread (thread_snapshot.h, a handshake); owners of
 * the monitors threads are blocked on are matched among what the others own, and only those not
 * found are asked of ThreadMXBean (management_source.h). */
#ifndef JVMTICLI_SNAPSHOT_SOURCE_H
#define JVMTICLI_SNAPSHOT_SOURCE_H

#include <jni.h>
#include <stddef.h>

#include "lock_facts.h"

/* One thread that may own a monitor or waits for one, looked at alone; its owned monitors placed
 * on the frames the caller took (s->methods), or on frames taken here when it kept none. The owner
 * of a monitor it is blocked entering is left to snapshot_source_name_owners. Returns 0 or -1. */
int snapshot_source_collect(JNIEnv *jni, const lock_subject *s, jint max_depth, lock_facts *f);

/* Names the owners of the monitors the subjects are blocked entering, from facts[0..count):
 * 0, or -1 when some could not be named. */
int snapshot_source_name_owners(JNIEnv *jni, const lock_subject *subjects, size_t count, lock_facts *facts);

#endif
