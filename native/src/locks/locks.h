/* What threads own and what they wait for: monitors owned (with the frame depth where each was
 * entered), the monitor a thread is blocked entering or waits on in Object.wait, and the object
 * it is parked on, each with its owner where there is one.
 *
 * Three sources give the same facts, one file each:
 * - "jvmti" (jvmti_source.h): with the capabilities HotSpot grants only at start-up (-agentpath:),
 *   JVMTI answers directly, thread by thread, with at most LOCKS_MONITOR_USAGE_CALLS
 *   GetObjectMonitorUsage calls (VM operations) per request, retries included.
 * - "snapshot" (snapshot_source.h): after a live attach on JDK 25+, when owned monitors are asked
 *   for, a ThreadSnapshot per thread (a handshake).
 * - "management" (management_source.h): otherwise after a live attach, ThreadMXBean.getThreadInfo
 *   for small batches of threads. With owned monitors, HotSpot before JDK 25 looks through every
 *   monitor in use for each thread it is asked about: the pause grows faster than the threads.
 * Parked threads are read in all modes (locks_collect_parked) through LockSupport.getBlocker and the blocker's
 * AbstractOwnableSynchronizer.exclusiveOwnerThread field. */
#ifndef JVMTICLI_LOCKS_H
#define JVMTICLI_LOCKS_H

#include <jni.h>
#include <jvmti.h>
#include <stddef.h>

#include "json.h"
#include "lock_facts.h"

/* Whether locks_collect looks for facts about this subject at all: it may own monitors, or it is
 * blocked, waiting or parked. */
int locks_needed(const lock_subject *s, int want_owned);

/* Whether locks_collect asks its source about this subject (a needed one that is not asked is only
 * parked: its facts are its blocker, locks_collect_parked). */
int locks_asks_source(const lock_subject *s, int want_owned);

/* Whether the facts come from JVMTI's own lock calls ("jvmti": the agent was started with the JVM). */
int locks_from_jvmti(void);

/* Whether the source looks at one thread at a time ("jvmti", "snapshot"): each thread's facts can
 * then be read right after its moment is taken (locks_collect_one), not in one pass over all. */
int locks_by_thread(JNIEnv *jni, int want_owned);

/* Whether the owners of the monitors threads are blocked on are named by matching each against
 * what the other threads own ("snapshot"): the threads of one dump are then taken in one round. */
int locks_owners_named_among(JNIEnv *jni, int want_owned);

/* Where locks_collect takes its facts from: "jvmti", "snapshot" or "management" (see above). */
const char *locks_source(JNIEnv *jni, int want_owned);

/* GetObjectMonitorUsage is a VM operation (a safepoint) in HotSpot: one request makes at most this
 * many, over every locks_collect it makes. */
#define LOCKS_MONITOR_USAGE_CALLS 256

/* Fills facts[i] for subjects[i]; owned monitors only when want_owned; not what a parked thread is
 * parked on (locks_collect_parked, read between two looks at the thread: thread_moment.h). facts must be zeroed.
 * usage_calls_left is what is left of the request's GetObjectMonitorUsage allowance (start it at
 * LOCKS_MONITOR_USAGE_CALLS), lowered by the calls made here.
 * Returns 0, or -1 when the facts could not be collected (facts then hold what was found). */
int locks_collect(JNIEnv *jni, const lock_subject *subjects, size_t count, jint max_depth, int want_owned,
                  int *usage_calls_left, lock_facts *facts);

/* For a source that looks thread by thread (locks_by_thread): locks_collect for one subject, but
 * for the owners of a monitor it is blocked entering that only the other subjects' facts tell
 * ("snapshot"): locks_name_owners names those, once every subject's facts are in. */
int locks_collect_one(JNIEnv *jni, const lock_subject *subject, jint max_depth, int want_owned, int *usage_calls_left,
                      lock_facts *facts);

/* Names the owners locks_collect_one left out, from the facts of subjects[0..count): 0, or -1 when
 * some could not be named. */
int locks_name_owners(JNIEnv *jni, const lock_subject *subjects, size_t count, int want_owned, lock_facts *facts);

/* What a parked thread is parked on (LockSupport.getBlocker) and the synchronizer's owner; facts
 * are left as they are when it has no blocker. Works for virtual threads. Returns 0 or -1. */
int locks_collect_parked(JNIEnv *jni, jthread thread, lock_facts *facts);

/* The thread's park blocker as a local reference, read as the field LockSupport.getBlocker reads
 * (no call into Java); NULL when it has none, or where that field is not known. */
jobject locks_read_park_blocker(JNIEnv *jni, jthread thread);

/* What locks_collect_parked tells of thread, parked on blocker (not NULL), which the caller read. */
int locks_collect_parked_on(JNIEnv *jni, jobject blocker, jthread thread, lock_facts *facts);

/* Whether the thread is parked on a blocker (LockSupport.getBlocker): 1, or 0 (none, or the call
 * failed). */
int locks_has_park_blocker(JNIEnv *jni, jthread thread);

/* Writes "locked" (when owned was collected) and "waitingFor" fields into the current object. */
void locks_write(json_writer *w, const lock_facts *facts, int want_owned);

/* Drops the JNI references the management path keeps (agent shutdown). */
void locks_release(JNIEnv *jni);

#endif
