#include "jvmti_source.h"

#include <stdlib.h>

#include "agent.h"
#include "jni_util.h"
#include "thread_facts.h"

static void release_usage(JNIEnv *jni, jvmtiMonitorUsage *usage) {
    jvmtiEnv *jvmti = the_agent.jvmti;
    if (usage->owner != NULL) (*jni)->DeleteLocalRef(jni, usage->owner);
    for (jint i = 0; i < usage->waiter_count; i++) (*jni)->DeleteLocalRef(jni, usage->waiters[i]);
    for (jint i = 0; i < usage->notify_waiter_count; i++) (*jni)->DeleteLocalRef(jni, usage->notify_waiters[i]);
    (*jvmti)->Deallocate(jvmti, (unsigned char *)usage->waiters);
    (*jvmti)->Deallocate(jvmti, (unsigned char *)usage->notify_waiters);
}

typedef struct {
    int *usage_calls_left; /* the request's allowance (LOCKS_MONITOR_USAGE_CALLS) */
    int incomplete;
} jvmti_pass;

/* Past the request's allowance, recursion and owners go unknown and the facts are marked
 * incomplete. */
static int monitor_usage(JNIEnv *jni, jvmti_pass *pass, jobject monitor, jvmtiMonitorUsage *usage) {
    if (*pass->usage_calls_left <= 0) {
        pass->incomplete = 1;
        return -1;
    }
    (*pass->usage_calls_left)--;
    if ((*the_agent.jvmti)->GetObjectMonitorUsage(the_agent.jvmti, monitor, usage) != JVMTI_ERROR_NONE) {
        return -1;
    }
    jni_reserve_locals(jni, 1 + usage->waiter_count + usage->notify_waiter_count);
    return 0;
}

/* JVMTI reports a monitor entered recursively once, at its innermost frame; its entry count
 * tells that there were more entries. */
static int entered_recursively(JNIEnv *jni, jvmti_pass *pass, jobject monitor) {
    jvmtiMonitorUsage usage;
    if (monitor_usage(jni, pass, monitor, &usage) != 0) {
        return 0;
    }
    int recursive = usage.entry_count > 1;
    release_usage(jni, &usage);
    return recursive;
}

/* Returns 1 when the facts need the frame-by-frame answer of the management path: a monitor
 * entered recursively, or an Object.wait whose monitor JVMTI did not name (JDK 22+ no longer
 * reports it through GetCurrentContendedMonitor). */
static int collect_jvmti(JNIEnv *jni, jvmti_pass *pass, const lock_subject *s, int want_owned, lock_facts *f) {
    jvmtiEnv *jvmti = the_agent.jvmti;
    int needs_walk = 0;
    if (want_owned) {
        jint count = 0;
        jvmtiMonitorStackDepthInfo *info = NULL;
        if ((*jvmti)->GetOwnedMonitorStackDepthInfo(jvmti, s->thread, &count, &info) == JVMTI_ERROR_NONE) {
            jni_reserve_locals(jni, count);
            f->owned = calloc(count > 0 ? (size_t)count : 1, sizeof *f->owned);
            for (jint i = 0; i < count; i++) {
                if (f->owned != NULL) {
                    lock_facts_describe_object(jni, info[i].monitor, &f->owned[f->owned_count].lock);
                    f->owned[f->owned_count++].depth = info[i].stack_depth;
                    needs_walk |= entered_recursively(jni, pass, info[i].monitor);
                }
                (*jni)->DeleteLocalRef(jni, info[i].monitor);
            }
            (*jvmti)->Deallocate(jvmti, (unsigned char *)info);
        }
    }
    int blocked = (s->state & JVMTI_THREAD_STATE_BLOCKED_ON_MONITOR_ENTER) != 0;
    int in_wait = (s->state & JVMTI_THREAD_STATE_IN_OBJECT_WAIT) != 0;
    if (!blocked && !in_wait) {
        return needs_walk;
    }
    jobject monitor = NULL;
    if ((*jvmti)->GetCurrentContendedMonitor(jvmti, s->thread, &monitor) != JVMTI_ERROR_NONE || monitor == NULL) {
        return needs_walk || in_wait;
    }
    f->waiting = blocked ? WAIT_ENTER : WAIT_NOTIFY;
    lock_facts_describe_object(jni, monitor, &f->waits_for);
    f->owner_id = -1;
    jvmtiMonitorUsage usage;
    if (blocked && monitor_usage(jni, pass, monitor, &usage) == 0) {
        f->owner_id = usage.owner == NULL ? -1 : thread_java_id(jni, usage.owner);
        release_usage(jni, &usage);
    } else {
        f->owner_unknown = blocked; /* the request's allowance of usage calls is spent, or the call failed */
    }
    (*jni)->DeleteLocalRef(jni, monitor);
    return needs_walk;
}

int jvmti_source_collect(JNIEnv *jni, const lock_subject *subjects, size_t count, int want_owned,
                         int *usage_calls_left, unsigned char *needs_walk, lock_facts *facts) {
    jvmti_pass pass = { usage_calls_left, 0 };
    for (size_t i = 0; i < count; i++) {
        needs_walk[i] = (unsigned char)collect_jvmti(jni, &pass, &subjects[i], want_owned, &facts[i]);
    }
    return pass.incomplete ? -1 : 0;
}
