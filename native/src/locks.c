#include "locks.h"

#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "jni_util.h"
#include "lock_owners.h"
#include "park_blocker.h"
#include "thread_facts.h"
#include "thread_snapshot.h"

/* How ThreadMXBean calls (one safepoint each) are batched, so that no pause is long. With locked
 * monitors asked for, HotSpot 17 looks through every monitor in use for each thread it is asked
 * about (a cost per thread that grows with the threads, docs/performance.md), and each safepoint costs
 * time per thread alive however few it looks at. So a batch takes at most 1/MANAGEMENT_BATCHES
 * of the threads (at least MANAGEMENT_MIN_BATCH), stops when its stack walks come to
 * MANAGEMENT_WALK_BUDGET frames, and ends before a thread that needs a much deeper walk than its
 * shallowest (walks SHALLOW_WALK frames deeper than needed cost next to nothing). */
#define MANAGEMENT_BATCHES 16
#define MANAGEMENT_MIN_BATCH 64
#define MANAGEMENT_WALK_BUDGET 20000
#define SHALLOW_WALK 32

/* JNI handles for the management path and for parked threads, looked up once per agent run. */
static struct {
    int ready;
    jclass lock_support;
    jmethodID get_blocker;
    jfieldID park_blocker;      /* Thread.parkBlocker, which getBlocker reads; NULL when not found */
    jclass ownable_synchronizer;
    jfieldID exclusive_owner;
    jobject thread_bean;
    jmethodID get_thread_info;
    /* ThreadInfo's, LockInfo's, MonitorInfo's and Enum's getters and fields (jni_accessor) */
    jni_accessor info_lock_info;
    jni_accessor info_lock_owner_id;
    jni_accessor info_locked_monitors;
    jni_accessor lock_class_name;
    jni_accessor lock_hash;
    jni_accessor monitor_depth;
    jni_accessor info_thread_state;
    jni_accessor info_stack_trace;
    jni_accessor state_ordinal;
} jni_handles;

static int is_jvmti_source(void) {
    return the_agent.held.can_get_owned_monitor_stack_depth_info && the_agent.held.can_get_current_contended_monitor
        && the_agent.held.can_get_monitor_info;
}

static int is_snapshot_source(JNIEnv *jni, int want_owned) {
    return !is_jvmti_source() && want_owned && thread_snapshot_available(jni);
}

int locks_from_jvmti(void) {
    return is_jvmti_source();
}

int locks_by_thread(JNIEnv *jni, int want_owned) {
    return is_jvmti_source() || is_snapshot_source(jni, want_owned);
}

int locks_owners_named_among(JNIEnv *jni, int want_owned) {
    return is_snapshot_source(jni, want_owned);
}

const char *locks_source(JNIEnv *jni, int want_owned) {
    return is_jvmti_source() ? "jvmti" : is_snapshot_source(jni, want_owned) ? "snapshot" : "management";
}

/* java.lang.Thread.State, in ordinal order, as JVMTI state values. */
static const jint java_states[] = {
    0,
    JVMTI_THREAD_STATE_ALIVE | JVMTI_THREAD_STATE_RUNNABLE,
    JVMTI_THREAD_STATE_ALIVE | JVMTI_THREAD_STATE_BLOCKED_ON_MONITOR_ENTER,
    JVMTI_THREAD_STATE_ALIVE | JVMTI_THREAD_STATE_WAITING | JVMTI_THREAD_STATE_WAITING_INDEFINITELY,
    JVMTI_THREAD_STATE_ALIVE | JVMTI_THREAD_STATE_WAITING | JVMTI_THREAD_STATE_WAITING_WITH_TIMEOUT,
    JVMTI_THREAD_STATE_TERMINATED,
};

/* Thread.State's ordinal, for what a ThreadInfo saw (read_witness). */
static int prepare_witness(JNIEnv *jni) {
    jclass state = (*jni)->FindClass(jni, "java/lang/Enum");
    if (jni_failed(jni, state)) {
        return -1;
    }
    int found = jni_accessor_find(jni, state, "ordinal", "ordinal", "I", &jni_handles.state_ordinal);
    (*jni)->DeleteLocalRef(jni, state);
    return found;
}

/* What a ThreadInfo saw of its thread's state and top frame. */
static void read_witness(JNIEnv *jni, jobject info, lock_witness *w) {
    jobject state = jni_read_object(jni, info, &jni_handles.info_thread_state);
    if (jni_failed(jni, state)) {
        return;
    }
    jint ordinal = jni_read_int(jni, state, &jni_handles.state_ordinal);
    (*jni)->DeleteLocalRef(jni, state);
    if (jni_cleared_exception(jni) || ordinal < 0 || ordinal >= (jint)(sizeof java_states / sizeof java_states[0])) {
        return;
    }
    jobjectArray stack = jni_read_object(jni, info, &jni_handles.info_stack_trace);
    if (jni_failed(jni, stack)) {
        return;
    }
    w->kind = WITNESS_OWN_STACK;
    w->state = java_states[ordinal];
    lock_facts_witness_frames(jni, stack, w);
    (*jni)->DeleteLocalRef(jni, stack);
}

static int prepare_parking(JNIEnv *jni) {
    jni_handles.lock_support = jni_global_class(jni, "java/util/concurrent/locks/LockSupport");
    jni_handles.ownable_synchronizer = jni_global_class(jni, "java/util/concurrent/locks/AbstractOwnableSynchronizer");
    if (jni_handles.lock_support == NULL || jni_handles.ownable_synchronizer == NULL) {
        return -1;
    }
    jni_handles.get_blocker = (*jni)->GetStaticMethodID(jni, jni_handles.lock_support, "getBlocker",
                                                          "(Ljava/lang/Thread;)Ljava/lang/Object;");
    if (jni_failed(jni, jni_handles.get_blocker)) return -1;
    jclass thread = (*jni)->FindClass(jni, "java/lang/Thread");
    if (jni_failed(jni, thread)) return -1;
    jni_handles.park_blocker = (*jni)->GetFieldID(jni, thread, "parkBlocker", "Ljava/lang/Object;");
    jni_cleared_exception(jni); /* then the blocker is asked of LockSupport */
    (*jni)->DeleteLocalRef(jni, thread);
    jni_handles.exclusive_owner = (*jni)->GetFieldID(jni, jni_handles.ownable_synchronizer, "exclusiveOwnerThread",
                                                       "Ljava/lang/Thread;");
    return jni_failed(jni, jni_handles.exclusive_owner) ? -1 : 0;
}

static int prepare_management(JNIEnv *jni) {
    jclass factory = (*jni)->FindClass(jni, "java/lang/management/ManagementFactory");
    if (jni_failed(jni, factory)) return -1;
    jmethodID get_bean = (*jni)->GetStaticMethodID(jni, factory, "getThreadMXBean", "()Ljava/lang/management/ThreadMXBean;");
    jobject bean = jni_failed(jni, get_bean) ? NULL : (*jni)->CallStaticObjectMethod(jni, factory, get_bean);
    (*jni)->DeleteLocalRef(jni, factory);
    if (jni_failed(jni, bean)) return -1;

    jclass bean_class = (*jni)->FindClass(jni, "java/lang/management/ThreadMXBean");
    jclass info = (*jni)->FindClass(jni, "java/lang/management/ThreadInfo");
    jclass lock = (*jni)->FindClass(jni, "java/lang/management/LockInfo");
    jclass monitor = (*jni)->FindClass(jni, "java/lang/management/MonitorInfo");
    int ok = !jni_failed(jni, bean_class) && !jni_failed(jni, info) && !jni_failed(jni, lock) && !jni_failed(jni, monitor);
    if (ok) {
        jni_handles.get_thread_info = (*jni)->GetMethodID(jni, bean_class, "getThreadInfo", "([JZZI)[Ljava/lang/management/ThreadInfo;");
        ok = !jni_failed(jni, jni_handles.get_thread_info)
            && jni_accessor_find(jni, info, "getLockInfo", "lock", "Ljava/lang/management/LockInfo;", &jni_handles.info_lock_info) == 0
            && jni_accessor_find(jni, info, "getLockOwnerId", "lockOwnerId", "J", &jni_handles.info_lock_owner_id) == 0
            && jni_accessor_find(jni, info, "getLockedMonitors", "lockedMonitors", "[Ljava/lang/management/MonitorInfo;",
                                 &jni_handles.info_locked_monitors) == 0
            && jni_accessor_find(jni, lock, "getClassName", "className", "Ljava/lang/String;", &jni_handles.lock_class_name) == 0
            && jni_accessor_find(jni, lock, "getIdentityHashCode", "identityHashCode", "I", &jni_handles.lock_hash) == 0
            && jni_accessor_find(jni, monitor, "getLockedStackDepth", "stackDepth", "I", &jni_handles.monitor_depth) == 0
            && jni_accessor_find(jni, info, "getThreadState", "threadState", "Ljava/lang/Thread$State;",
                                 &jni_handles.info_thread_state) == 0
            && jni_accessor_find(jni, info, "getStackTrace", "stackTrace", "[Ljava/lang/StackTraceElement;",
                                 &jni_handles.info_stack_trace) == 0;
    }
    if (bean_class != NULL) (*jni)->DeleteLocalRef(jni, bean_class);
    if (info != NULL) (*jni)->DeleteLocalRef(jni, info);
    if (lock != NULL) (*jni)->DeleteLocalRef(jni, lock);
    if (monitor != NULL) (*jni)->DeleteLocalRef(jni, monitor);
    /* the bean is kept last: its presence is what says every method ID above is usable */
    if (ok) {
        jni_handles.thread_bean = (*jni)->NewGlobalRef(jni, bean);
        ok = jni_handles.thread_bean != NULL;
    }
    (*jni)->DeleteLocalRef(jni, bean);
    return ok ? 0 : -1;
}

static int prepare(JNIEnv *jni) {
    if (jni_handles.ready) {
        return 0;
    }
    if (prepare_parking(jni) != 0 || prepare_witness(jni) != 0) {
        locks_release(jni);
        return -1;
    }
    jni_handles.ready = 1;
    return 0;
}

/* ThreadMXBean is set up only when first needed: a start-up agent may never need it. */
static int prepare_thread_bean(JNIEnv *jni) {
    return jni_handles.thread_bean != NULL ? 0 : prepare_management(jni);
}

void locks_release(JNIEnv *jni) {
    if (jni_handles.lock_support != NULL) (*jni)->DeleteGlobalRef(jni, jni_handles.lock_support);
    if (jni_handles.ownable_synchronizer != NULL) (*jni)->DeleteGlobalRef(jni, jni_handles.ownable_synchronizer);
    if (jni_handles.thread_bean != NULL) (*jni)->DeleteGlobalRef(jni, jni_handles.thread_bean);
    memset(&jni_handles, 0, sizeof jni_handles);
}

/* What LockSupport.getBlocker(thread) returns, read from the field it reads where that was found:
 * a field read rather than a call into Java, for every parked virtual thread of a walk. */
static jobject park_blocker(JNIEnv *jni, jthread thread) {
    if (jni_handles.park_blocker != NULL) {
        return (*jni)->GetObjectField(jni, thread, jni_handles.park_blocker);
    }
    return (*jni)->CallStaticObjectMethod(jni, jni_handles.lock_support, jni_handles.get_blocker, thread);
}

/* The facts of a thread parked on blocker (not NULL). */
static void describe_parked(JNIEnv *jni, jobject blocker, lock_facts *f) {
    f->waiting = park_blocker_kind(jni, blocker);
    lock_facts_describe_object(jni, blocker, &f->waits_for);
    f->owner_id = -1;
    if ((*jni)->IsInstanceOf(jni, blocker, jni_handles.ownable_synchronizer)) {
        jthread owner = (*jni)->GetObjectField(jni, blocker, jni_handles.exclusive_owner);
        if (owner != NULL) {
            f->owner_id = thread_java_id(jni, owner);
            (*jni)->DeleteLocalRef(jni, owner);
        }
    }
}

static void collect_parked(JNIEnv *jni, const lock_subject *s, lock_facts *f) {
    jobject blocker = park_blocker(jni, s->thread);
    if (jni_failed(jni, blocker)) {
        return;
    }
    describe_parked(jni, blocker, f);
    (*jni)->DeleteLocalRef(jni, blocker);
}

int locks_collect_parked(JNIEnv *jni, jthread thread, lock_facts *facts) {
    if (prepare(jni) != 0) {
        return -1;
    }
    lock_subject subject = { .thread = thread, .id = -1, .state = JVMTI_THREAD_STATE_PARKED };
    collect_parked(jni, &subject, facts);
    return 0;
}

jobject locks_read_park_blocker(JNIEnv *jni, jthread thread) {
    if (prepare(jni) != 0 || jni_handles.park_blocker == NULL) {
        return NULL;
    }
    jobject blocker = (*jni)->GetObjectField(jni, thread, jni_handles.park_blocker);
    return jni_failed(jni, blocker) ? NULL : blocker;
}

int locks_collect_parked_on(JNIEnv *jni, jobject blocker, lock_facts *facts) {
    if (prepare(jni) != 0) {
        return -1;
    }
    describe_parked(jni, blocker, facts);
    return 0;
}

int locks_has_park_blocker(JNIEnv *jni, jthread thread) {
    if (prepare(jni) != 0) {
        return 0;
    }
    jobject blocker = park_blocker(jni, thread);
    if (jni_failed(jni, blocker)) {
        return 0;
    }
    (*jni)->DeleteLocalRef(jni, blocker);
    return 1;
}

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

/* A LockInfo (or MonitorInfo) as a lock_ref. */
static int read_lock_info(JNIEnv *jni, jobject info, lock_ref *ref) {
    ref->class_name = jni_read_string(jni, info, &jni_handles.lock_class_name);
    if (ref->class_name == NULL) {
        return -1;
    }
    ref->hash = jni_read_int(jni, info, &jni_handles.lock_hash);
    return jni_cleared_exception(jni) ? -1 : 0;
}

static void clear_facts(lock_facts *f) {
    lock_facts_free(f, 1);
    memset(f, 0, sizeof *f);
    f->owner_id = -1;
}

static void read_thread_info(JNIEnv *jni, jobject info, const lock_subject *s, int want_owned, lock_facts *f) {
    clear_facts(f);
    read_witness(jni, info, &f->seen);
    if (want_owned) {
        jobjectArray monitors = jni_read_object(jni, info, &jni_handles.info_locked_monitors);
        if (!jni_failed(jni, monitors)) {
            jsize count = (*jni)->GetArrayLength(jni, monitors);
            f->owned = calloc(count > 0 ? (size_t)count : 1, sizeof *f->owned);
            for (jsize i = 0; i < count && f->owned != NULL; i++) {
                jobject monitor = (*jni)->GetObjectArrayElement(jni, monitors, i);
                if (!jni_failed(jni, monitor) && read_lock_info(jni, monitor, &f->owned[f->owned_count].lock) == 0) {
                    jint depth = jni_read_int(jni, monitor, &jni_handles.monitor_depth);
                    f->owned[f->owned_count++].depth = jni_cleared_exception(jni) ? -1 : depth;
                }
                if (monitor != NULL) (*jni)->DeleteLocalRef(jni, monitor);
            }
            (*jni)->DeleteLocalRef(jni, monitors);
        }
    }
    int blocked = (s->state & JVMTI_THREAD_STATE_BLOCKED_ON_MONITOR_ENTER) != 0;
    if (!blocked && (s->state & JVMTI_THREAD_STATE_IN_OBJECT_WAIT) == 0) {
        return;
    }
    jobject lock = jni_read_object(jni, info, &jni_handles.info_lock_info);
    if (jni_failed(jni, lock)) {
        return;
    }
    if (read_lock_info(jni, lock, &f->waits_for) == 0) {
        f->waiting = blocked ? WAIT_ENTER : WAIT_NOTIFY;
        f->owner_id = blocked ? jni_read_long(jni, info, &jni_handles.info_lock_owner_id) : -1;
        if (jni_cleared_exception(jni)) {
            f->owner_id = -1;
            f->owner_unknown = blocked;
        }
    }
    (*jni)->DeleteLocalRef(jni, lock);
}

static int needs_thread_info(const lock_subject *s, int want_owned) {
    return (want_owned && s->owned_depth >= 0)
        || (s->state & (JVMTI_THREAD_STATE_BLOCKED_ON_MONITOR_ENTER | JVMTI_THREAD_STATE_IN_OBJECT_WAIT)) != 0;
}

int locks_needed(const lock_subject *s, int want_owned) {
    return needs_thread_info(s, want_owned) || (s->state & JVMTI_THREAD_STATE_PARKED) != 0;
}

int locks_asks_source(const lock_subject *s, int want_owned) {
    return is_jvmti_source() || needs_thread_info(s, want_owned);
}

/* The stack depth a management call must walk for this subject: with its owned monitors, as deep
 * as they may be; without, its top frame, which tells whether ThreadInfo saw the moment whose
 * frames were taken. */
static jint walk_depth(const lock_subject *s, jint max_depth, int want_owned) {
    if (!want_owned) {
        return s->height > 0 ? 1 : 0;
    }
    return s->owned_depth <= 0 || s->owned_depth > max_depth ? max_depth : s->owned_depth;
}

/* One ThreadMXBean.getThreadInfo call (one short safepoint) for n threads, walking depth frames
 * of each. */
static int collect_management_batch(JNIEnv *jni, const lock_subject *subjects, const size_t *which, size_t n,
                                    jint depth, int want_owned, lock_facts *facts) {
    jlong *ids = malloc(n * sizeof *ids);
    if (ids == NULL) {
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        ids[i] = subjects[which[i]].id;
    }
    if ((*jni)->PushLocalFrame(jni, 64) != 0) {
        jni_cleared_exception(jni);
        free(ids);
        return -1;
    }
    int status = -1;
    jlongArray id_array = (*jni)->NewLongArray(jni, (jsize)n);
    if (!jni_failed(jni, id_array)) {
        (*jni)->SetLongArrayRegion(jni, id_array, 0, (jsize)n, ids);
        jobjectArray infos = (*jni)->CallObjectMethod(jni, jni_handles.thread_bean, jni_handles.get_thread_info, id_array,
                                                      (jboolean)(want_owned != 0), JNI_FALSE, depth);
        if (!jni_failed(jni, infos)) {
            for (size_t i = 0; i < n; i++) {
                jobject info = (*jni)->GetObjectArrayElement(jni, infos, (jsize)i);
                if (!jni_failed(jni, info)) { /* null: the thread ended */
                    read_thread_info(jni, info, &subjects[which[i]], want_owned, &facts[which[i]]);
                    (*jni)->DeleteLocalRef(jni, info);
                }
            }
            status = 0;
        }
    }
    (*jni)->PopLocalFrame(jni, NULL);
    free(ids);
    return status;
}

typedef struct {
    size_t index;
    jint depth;   /* the depth asked for */
    jint frames;  /* the frames it walks: the depth, or fewer when the stack was shallower */
} walk;

static int by_depth(const void *a, const void *b) {
    const walk *x = a;
    const walk *y = b;
    if (x->depth != y->depth) {
        return x->depth < y->depth ? -1 : 1;
    }
    return x->index < y->index ? -1 : x->index > y->index;
}

/* ThreadMXBean answers for the subjects whose flag in chosen is set (all when chosen is NULL).
 * The stack walk at the safepoint costs per frame, so threads are batched by the depth they need
 * (a batch walks as deep as its deepest member). */
static int collect_management(JNIEnv *jni, const lock_subject *subjects, size_t count, const unsigned char *chosen,
                              jint max_depth, int want_owned, lock_facts *facts) {
    size_t n = 0;
    size_t walks = 0;
    int status = 0;
    if (prepare_thread_bean(jni) != 0) {
        return -1;
    }
    walk *todo = malloc((count > 0 ? count : 1) * sizeof *todo);
    size_t *batch = malloc((count > 0 ? count : 1) * sizeof *batch);
    if (todo == NULL || batch == NULL) {
        free(todo);
        free(batch);
        return -1;
    }
    for (size_t i = 0; i < count; i++) {
        if (subjects[i].id < 0 || !needs_thread_info(&subjects[i], want_owned) || (chosen != NULL && !chosen[i])) {
            continue;
        }
        jint depth = walk_depth(&subjects[i], max_depth, want_owned);
        jint height = subjects[i].height;
        todo[walks++] = (walk) { i, depth, height > 0 && height < depth ? height : depth };
    }
    qsort(todo, walks, sizeof *todo, by_depth);
    size_t batch_size = count / MANAGEMENT_BATCHES > MANAGEMENT_MIN_BATCH ? count / MANAGEMENT_BATCHES : MANAGEMENT_MIN_BATCH;
    jint batch_floor = 0;
    size_t batch_frames = 0;
    for (size_t i = 0; i < walks; i++) {
        if (n == 0) {
            batch_floor = todo[i].depth;
            batch_frames = 0;
        }
        batch[n++] = todo[i].index;
        batch_frames += (size_t)todo[i].frames;
        int last = i + 1 == walks;
        int deeper_next = !last && todo[i + 1].depth > 2 * batch_floor + SHALLOW_WALK;
        int full = n == batch_size
            || (n >= MANAGEMENT_MIN_BATCH && !last && batch_frames + (size_t)todo[i + 1].frames > MANAGEMENT_WALK_BUDGET);
        if (last || deeper_next || full) {
            status |= collect_management_batch(jni, subjects, batch, n, todo[i].depth, want_owned, facts);
            n = 0;
        }
    }
    free(todo);
    free(batch);
    return status;
}

/* ---- the snapshot path ---- */

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
    int status = collect_management(jni, subjects, count, unresolved, 0, 0, asked);
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
 * of a monitor it is blocked entering is left to name_snapshot_owners. */
static int collect_snapshot(JNIEnv *jni, const lock_subject *s, jint max_depth, lock_facts *f) {
    if (s->id < 0 || !needs_thread_info(s, 1)) {
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
static int name_snapshot_owners(JNIEnv *jni, const lock_subject *subjects, size_t count, lock_facts *facts) {
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

int locks_collect_one(JNIEnv *jni, const lock_subject *subject, jint max_depth, int want_owned, int *usage_calls_left,
                      lock_facts *facts) {
    if (!is_snapshot_source(jni, want_owned)) {
        return locks_collect(jni, subject, 1, max_depth, want_owned, usage_calls_left, facts);
    }
    facts->owner_id = -1;
    return prepare(jni) != 0 ? -1 : collect_snapshot(jni, subject, max_depth, facts);
}

int locks_name_owners(JNIEnv *jni, const lock_subject *subjects, size_t count, int want_owned, lock_facts *facts) {
    if (!is_snapshot_source(jni, want_owned)) {
        return 0; /* the other sources name every owner themselves */
    }
    return prepare(jni) != 0 ? -1 : name_snapshot_owners(jni, subjects, count, facts);
}

int locks_collect(JNIEnv *jni, const lock_subject *subjects, size_t count, jint max_depth, int want_owned,
                  int *usage_calls_left, lock_facts *facts) {
    for (size_t i = 0; i < count; i++) {
        facts[i].owner_id = -1;
    }
    if (prepare(jni) != 0) {
        return -1;
    }
    int status = 0;
    if (is_jvmti_source()) {
        jvmti_pass pass = { usage_calls_left, 0 };
        unsigned char *needs_walk = calloc(count > 0 ? count : 1, 1);
        int any = 0;
        for (size_t i = 0; i < count; i++) {
            int walk = collect_jvmti(jni, &pass, &subjects[i], want_owned, &facts[i]);
            if (walk && subjects[i].is_virtual) {
                status = -1; /* what ThreadMXBean would fill in: it knows no virtual thread */
                walk = 0;
            }
            if (needs_walk != NULL) {
                needs_walk[i] = (unsigned char)walk;
            }
            any |= walk;
        }
        if (any) {
            status |= needs_walk == NULL ? -1 : collect_management(jni, subjects, count, needs_walk, max_depth, want_owned, facts);
        }
        free(needs_walk);
        if (pass.incomplete) {
            status = -1;
        }
    } else if (is_snapshot_source(jni, want_owned)) {
        for (size_t i = 0; i < count; i++) {
            status |= collect_snapshot(jni, &subjects[i], max_depth, &facts[i]);
        }
        status |= name_snapshot_owners(jni, subjects, count, facts);
    } else {
        status = collect_management(jni, subjects, count, NULL, max_depth, want_owned, facts);
    }
    return status;
}

static void write_ref(json_writer *w, const lock_ref *ref) {
    json_key(w, "class");
    json_mutf8(w, ref->class_name);
    json_key(w, "hash");
    json_int(w, (uint32_t)ref->hash);
}

void locks_write(json_writer *w, const lock_facts *f, int want_owned) {
    static const char *kinds[] = { "none", "enter", "notify", "park", "signal", "acquire" };
    if (want_owned) {
        json_key(w, "locked");
        json_begin_array(w);
        for (jint i = 0; i < f->owned_count; i++) {
            json_begin_object(w);
            write_ref(w, &f->owned[i].lock);
            json_key(w, "depth");
            json_int(w, f->owned[i].depth);
            json_end_object(w);
        }
        json_end_array(w);
    }
    if (f->waiting != WAIT_NONE) {
        json_key(w, "waitingFor");
        json_begin_object(w);
        json_key(w, "kind");
        json_cstring(w, kinds[f->waiting]);
        write_ref(w, &f->waits_for);
        json_key(w, "ownerId");
        json_int(w, f->owner_id);
        if (f->owner_unknown) {
            json_key(w, "ownerUnknown");
            json_bool(w, 1);
        }
        json_end_object(w);
    }
    if (f->wait_unnamed) {
        json_key(w, "waitUnnamed");
        json_bool(w, 1);
    }
}
