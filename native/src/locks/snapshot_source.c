#include "snapshot_source.h"

#include <stdlib.h>

#include "agent.h"
#include "lock_owners.h"
#include "management_source.h"
#include "thread_snapshot.h"

/* The owners of monitors no snapshot showed owned (one entered through JNI, one that changed hands
 * between two snapshots, or one whose owner is not among the subjects), from ThreadMXBean without
 * locked monitors: one short safepoint, and only when there is any. A subject whose ThreadInfo
 * waits to enter the same monitor is resolved (unresolved[i] cleared). */
static int ask_owners(JNIEnv *jni, const lock_subject *subjects, size_t count, unsigned char *unresolved,
                      lock_facts *facts) {
    lock_facts *asked = calloc(count > 0 ? count : 1, sizeof *asked);
    if (asked == NULL) {
        return -1;
    }
    for (size_t i = 0; i < count; i++) {
        asked[i].owner_id = -1;
    }
    int status = management_source_collect(jni, subjects, count, unresolved, 0, 0, asked);
    for (size_t i = 0; i < count; i++) {
        if (unresolved[i] && asked[i].waiting == WAIT_ENTER && asked[i].waits_for.hash == facts[i].waits_for.hash) {
            facts[i].owner_id = asked[i].owner_id;
            unresolved[i] = 0;
        }
    }
    lock_facts_free(asked, count);
    free(asked);
    return status;
}

/* The methods of a thread's frames (top first), up to max_depth of them, into methods (room for
 * max_depth); taken from frames (max_depth of room). Returns how many, 0 when it has ended. */
static jint take_methods(jthread thread, jint max_depth, jvmtiFrameInfo *frames, jmethodID *methods) {
    jint count = 0;
    if ((*the_agent.jvmti)->GetStackTrace(the_agent.jvmti, thread, 0, max_depth, frames, &count) != JVMTI_ERROR_NONE) {
        return 0;
    }
    for (jint i = 0; i < count; i++) {
        methods[i] = frames[i].method;
    }
    return count;
}

/* One thread that may own a monitor or waits for one, looked at alone in a ThreadSnapshot
 * (thread_snapshot.h, a handshake with that thread); no global safepoint. Its owned monitors are
 * placed on the frames the caller took (or, when it kept none, on frames taken here). The owner
 * of a monitor it is blocked entering is left to snapshot_source_name_owners. */
int snapshot_source_collect(JNIEnv *jni, const lock_subject *s, jint max_depth, lock_facts *f) {
    if (s->id < 0 || !lock_subject_needs_thread_info(s, 1)) {
        return 0;
    }
    int status = 0;
    if (s->methods != NULL) {
        status = thread_snapshot_locks(jni, s->thread, s->methods, s->method_count, f);
    } else {
        jvmtiFrameInfo *frames = malloc((size_t)max_depth * sizeof *frames);
        jmethodID *methods = malloc((size_t)max_depth * sizeof *methods);
        status = frames == NULL || methods == NULL
            ? -1 : thread_snapshot_locks(jni, s->thread, methods, take_methods(s->thread, max_depth, frames, methods), f);
        free(frames);
        free(methods);
    }
    if ((s->state & JVMTI_THREAD_STATE_BLOCKED_ON_MONITOR_ENTER) != 0 && f->waiting == WAIT_NOTIFY) {
        f->waiting = WAIT_ENTER; /* notified, entering the monitor again */
    }
    return status;
}

/* The owners of the monitors the subjects' snapshots are blocked entering: matched among what the
 * others' snapshots own, and only those not found there asked of ThreadMXBean. */
int snapshot_source_name_owners(JNIEnv *jni, const lock_subject *subjects, size_t count, lock_facts *facts) {
    unsigned char *unresolved = calloc(count > 0 ? count : 1, 1);
    if (unresolved == NULL) {
        return -1;
    }
    int status = lock_owners_match(subjects, count, facts, unresolved) != 0 ? -1 : 0;
    int any_unresolved = 0;
    for (size_t i = 0; i < count; i++) {
        facts[i].owner_unknown = unresolved[i]; /* a virtual thread's owner may still be found by the CLI */
        unresolved[i] &= !subjects[i].is_virtual;
        any_unresolved |= unresolved[i];
    }
    if (any_unresolved) {
        status |= ask_owners(jni, subjects, count, unresolved, facts);
        for (size_t i = 0; i < count; i++) {
            facts[i].owner_unknown &= subjects[i].is_virtual || unresolved[i];
        }
    }
    free(unresolved);
    return status;
}
