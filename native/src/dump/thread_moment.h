/* One thread of a dump at one moment: its state and frames from one handshake with that thread
 * (GetThreadListStackTraces for it alone, which returns both from the same look; never a global
 * safepoint), then its lock facts from their source (locks.h), checked there against that state
 * and those frames: against what the source saw of the thread itself when it looks at it
 * (ThreadInfo, ThreadSnapshot), otherwise by taking state and frames again after the facts and
 * keeping the facts only when the thread has not moved; and against lock_fit's rules. Where the
 * source looks at one thread at a time (JVMTI in start-up mode, ThreadSnapshot), each thread's
 * moment is taken again right before its facts and checked right after them, before the next
 * thread's (the owners ThreadSnapshot leaves out are named after the pass, from every thread's
 * facts); ThreadMXBean answers for every pending thread in one call, each checked after it. A
 * parked thread is checked against two looks with its blocker read between them: the second look
 * right after the blocker, the first the moment itself where nothing else was asked since. A
 * thread the source is not asked about has its blocker read as a field right before its first
 * look and right after it, and where both reads find the same blocker, that look is its moment
 * (see parked_around in thread_moment.c); else its blocker is read again between two looks. A
 * thread that moved is taken again, up to MOMENT_TRIES times (once more when it moved since that
 * first check); one that never settles keeps the state and frames of its last moment, without lock
 * facts, and is marked unsettled. */
#ifndef JVMTICLI_THREAD_MOMENT_H
#define JVMTICLI_THREAD_MOMENT_H

#include <jni.h>
#include <jvmti.h>

#include "locks.h"

#define MOMENT_TRIES 3

typedef struct {
    jint state;                 /* GetThreadState bits, seen with the frames */
    jvmtiStackInfo *stack;      /* JVMTI-allocated; NULL when no frames were taken */
    jint count;                 /* frames, top first, at stack->frame_buffer */
    int truncated;              /* as many as asked: there may be more */
    lock_facts locks;
    int unsettled;              /* its lock facts never fitted: left out */
} thread_moment;

/* Takes state and, when max_depth > 0, up to max_depth frames. Returns 0, or -1 when the thread
 * has ended or the call failed (m is then empty). */
int thread_moment_take(jthread thread, jint max_depth, thread_moment *m);

static inline const jvmtiFrameInfo *thread_moment_frames(const thread_moment *m) {
    return m->stack == NULL ? NULL : m->stack->frame_buffer;
}

/* Takes the moments of threads[0..count) and their lock facts (owned monitors only when
 * want_owned), settled as described above; subjects[i] is set from moments[i]. moments and
 * subjects must be zeroed; subjects[i].thread and .id set. usage_calls_left: what is left of the
 * request's GetObjectMonitorUsage allowance (locks_collect). Returns what locks_collect returned:
 * 0, or -1 when some facts could not be collected. */
int thread_moments_take(JNIEnv *jni, lock_subject *subjects, size_t count, jint max_depth, int want_owned,
                        int *usage_calls_left, thread_moment *moments);

/* Writes the moment's lock facts (see locks_write), and "unsettled" when it never settled. */
void thread_moment_write_locks(json_writer *w, const thread_moment *m, int want_owned);

void thread_moments_free(thread_moment *moments, size_t count);

#endif
