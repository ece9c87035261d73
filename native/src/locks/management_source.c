#include "management_source.h"

#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "jni_util.h"
#include "thread_facts.h"
#include "thread_state.h"

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

/* JNI handles for ThreadMXBean and the ThreadInfo it answers, looked up once per agent run. */
static struct {
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

/* Thread.State's ordinal, for what a ThreadInfo saw (read_witness). */
int management_source_prepare(JNIEnv *jni) {
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
    jint java_state;
    if (jni_cleared_exception(jni) || thread_state_of_java_ordinal(ordinal, &java_state) != 0) {
        return;
    }
    jobjectArray stack = jni_read_object(jni, info, &jni_handles.info_stack_trace);
    if (jni_failed(jni, stack)) {
        return;
    }
    w->kind = WITNESS_OWN_STACK;
    w->state = java_state;
    lock_facts_witness_frames(jni, stack, w);
    (*jni)->DeleteLocalRef(jni, stack);
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

/* ThreadMXBean is set up only when first needed: a start-up agent may never need it. */
static int prepare_thread_bean(JNIEnv *jni) {
    return jni_handles.thread_bean != NULL ? 0 : prepare_management(jni);
}

void management_source_release(JNIEnv *jni) {
    if (jni_handles.thread_bean != NULL) (*jni)->DeleteGlobalRef(jni, jni_handles.thread_bean);
    memset(&jni_handles, 0, sizeof jni_handles);
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

/* The stack walk at the safepoint costs per frame, so threads are batched by the depth they need
 * (a batch walks as deep as its deepest member). */
int management_source_collect(JNIEnv *jni, const lock_subject *subjects, size_t count, const unsigned char *chosen,
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
        if (subjects[i].id < 0 || !lock_subject_needs_thread_info(&subjects[i], want_owned) || (chosen != NULL && !chosen[i])) {
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
