/* What threads own and what they wait for: monitors owned (with the frame depth where each was
 * entered), the monitor a thread is blocked entering or waits on in Object.wait, and the object
 * it is parked on, each with its owner where there is one.
 *
 * Three sources give the same facts:
 * - "jvmti": with the capabilities HotSpot grants only at start-up (-agentpath:), JVMTI answers
 *   directly, thread by thread: GetOwnedMonitorStackDepthInfo and GetCurrentContendedMonitor
 *   (handshakes), and GetObjectMonitorUsage, a VM operation, only for an owned monitor (is it
 *   entered recursively?) or the monitor a BLOCKED thread waits for (its owner), at most
 *   LOCKS_MONITOR_USAGE_CALLS times per request, retries included.
 * - "snapshot": after a live attach on JDK 25+, when owned monitors are asked for, a ThreadSnapshot
 *   per thread (thread_snapshot.h, a handshake); owners of the monitors threads are blocked on are
 *   matched among what the others own, and only those not found are asked of ThreadMXBean.
 * - "management": otherwise after a live attach, java.lang.management.ThreadMXBean.getThreadInfo
 *   for small batches of threads (each batch one short safepoint; never the all-threads dump with
 *   synchronizers, which walks the heap). With owned monitors, HotSpot before JDK 25 looks through
 *   every monitor in use for each thread it is asked about: the pause grows faster than the threads.
 * Parked threads are read in all modes (locks_collect_parked) through LockSupport.getBlocker and the blocker's
 * AbstractOwnableSynchronizer.exclusiveOwnerThread field. */
#ifndef JVMTICLI_LOCKS_H
#define JVMTICLI_LOCKS_H

#include <jni.h>
#include <jvmti.h>
#include <stddef.h>

#include "json.h"

typedef struct {
    jint hash;          /* identity hash code */
    char *class_name;   /* Java class name, modified UTF-8, malloc'd */
} lock_ref;

typedef struct {
    lock_ref lock;
    jint depth;         /* frame where it was entered; -1 when entered by JNI */
} owned_monitor;

/* WAIT_PARK, WAIT_SIGNAL and WAIT_ACQUIRE are parked threads, told apart by their blocker
 * (park_blocker.h). */
typedef enum { WAIT_NONE, WAIT_ENTER, WAIT_NOTIFY, WAIT_PARK, WAIT_SIGNAL, WAIT_ACQUIRE } wait_kind;

/* What a source that looks at the thread itself (ThreadMXBean's ThreadInfo, ThreadSnapshot) saw
 * of its state and top frame in the same look as the facts: what the facts are checked against
 * (thread_moment.h). JVMTI's lock calls and LockSupport.getBlocker see the facts alone. */
typedef enum {
    WITNESS_NONE,
    WITNESS_OWN_STACK,  /* owned depths are of the witness's own frames (ThreadInfo) */
    WITNESS_MAPPED      /* owned depths were mapped onto the subject's frames (ThreadSnapshot) */
} witness_kind;

typedef struct {
    witness_kind kind;
    jint state;         /* JVMTI_JAVA_LANG_THREAD_STATE_* value */
    jint frames_seen;   /* how many frames it walked; -1 when it looked at none */
    char *top_class;    /* the top frame seen, malloc'd, when it walked any */
    char *top_method;
    jint top_line;      /* -2 native, -1 unknown */
    jint top_depth;     /* WITNESS_MAPPED: the subject's frame that top is, the first with its method
                           (below frames the witness hides, as ThreadSnapshot hides a virtual
                           thread's yield); 0 otherwise */
} lock_witness;

typedef struct {
    owned_monitor *owned;
    jint owned_count;
    wait_kind waiting;
    lock_ref waits_for;
    jlong owner_id;     /* the Java id of the thread owning what this one waits for, or -1 */
    lock_witness seen;
} lock_facts;

typedef struct {
    jthread thread;
    jlong id;
    jint state;         /* GetThreadState bits */
    jint owned_depth;   /* frames to look at for owned monitors: 0 all of them (up to max_depth),
                           -1 none (its frames show it can own none) */
    jint height;        /* frames it had when they were taken; 0 when not taken */
    jmethodID *methods; /* the methods of those frames, top first, as deep as owned_depth says (all
                           when 0); method_count of them, malloc'd; NULL when not kept */
    jint method_count;
    int is_virtual;     /* ThreadMXBean knows nothing of it: its owners are not asked of it */
} lock_subject;

/* Whether locks_collect looks for facts about this subject at all: it may own monitors, or it is
 * blocked, waiting or parked. */
int locks_needed(const lock_subject *s, int want_owned);

/* Whether the source answers thread by thread ("jvmti"): the facts of one thread can be read and
 * checked before the next thread's. */
int locks_by_thread(void);

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

/* The identity hash and class name of an object (ref->class_name malloc'd). */
void locks_describe_object(JNIEnv *jni, jobject object, lock_ref *ref);

/* What a parked thread is parked on (LockSupport.getBlocker) and the synchronizer's owner; facts
 * are left as they are when it has no blocker. Works for virtual threads. Returns 0 or -1. */
int locks_collect_parked(JNIEnv *jni, jthread thread, lock_facts *facts);

/* Whether the thread is parked on a blocker (LockSupport.getBlocker): 1, or 0 (none, or the call
 * failed). */
int locks_has_park_blocker(JNIEnv *jni, jthread thread);

/* What a source saw of a thread's frames: how many, and the top one (stack: StackTraceElement[]). */
void locks_witness_frames(JNIEnv *jni, jobjectArray stack, lock_witness *w);

/* Writes "locked" (when owned was collected) and "waitingFor" fields into the current object. */
void locks_write(json_writer *w, const lock_facts *facts, int want_owned);

void locks_free(lock_facts *facts, size_t count);

/* Drops the JNI references the management path keeps (agent shutdown). */
void locks_release(JNIEnv *jni);

#endif
