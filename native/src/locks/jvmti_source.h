/* The "jvmti" source of lock facts (locks.h): with the capabilities HotSpot grants only at
 * start-up, JVMTI answers thread by thread: GetOwnedMonitorStackDepthInfo and
 * GetCurrentContendedMonitor (handshakes), and GetObjectMonitorUsage, a VM operation, only for an
 * owned monitor (is it entered recursively?) or the monitor a BLOCKED thread waits for (its owner). */
#ifndef JVMTICLI_JVMTI_SOURCE_H
#define JVMTICLI_JVMTI_SOURCE_H

#include <jni.h>
#include <stddef.h>

#include "lock_facts.h"

/* Fills facts[i] for subjects[i], and needs_walk[i] with 1 where the facts need the frame-by-frame
 * answer of the management source: a monitor entered recursively, or an Object.wait whose monitor
 * JVMTI did not name (JDK 22+ no longer reports it through GetCurrentContendedMonitor).
 * usage_calls_left: the request's GetObjectMonitorUsage allowance, lowered by the calls made.
 * Returns 0, or -1 when the allowance ran out (the owners and recursions it would have told are
 * then unknown). */
int jvmti_source_collect(JNIEnv *jni, const lock_subject *subjects, size_t count, int want_owned,
                         int *usage_calls_left, unsigned char *needs_walk, lock_facts *facts);

#endif
