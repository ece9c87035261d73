#include "thread_snapshot.h"

#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "frames.h"
#include "jni_util.h"
#include "virtual_hold.h"

static struct {
    int tried;
    jclass snapshot;
    jmethodID of;            /* NULL: no usable ThreadSnapshot in this JVM */
    jfieldID stack;
    jfieldID status;
    jfieldID locks;
    jfieldID blocker;
    jfieldID lock_depth;
    jfieldID lock_type;
    jfieldID lock_object;
    jfieldID blocker_type;
    jfieldID blocker_object;
    jmethodID element_class;
    jmethodID element_method;
    jobject type_locked;
    jobject type_waiting_to_lock;
    jobject type_waiting_on;
} snap;

static jobject global_static(JNIEnv *jni, const char *class_name, const char *field, const char *signature) {
    jclass klass = (*jni)->FindClass(jni, class_name);
    if (jni_failed(jni, klass)) {
        return NULL;
    }
    jobject global = NULL;
    jfieldID id = (*jni)->GetStaticFieldID(jni, klass, field, signature);
    if (!jni_failed(jni, id)) {
        jobject value = (*jni)->GetStaticObjectField(jni, klass, id);
        if (!jni_failed(jni, value)) {
            global = (*jni)->NewGlobalRef(jni, value);
            (*jni)->DeleteLocalRef(jni, value);
        }
    }
    (*jni)->DeleteLocalRef(jni, klass);
    return global;
}

/* A snapshot of the agent's own thread, thrown away: the classes a snapshot needs (its own, and
 * those StackTraceElement formats with) are initialized now, while no thread is suspended, and not
 * later while a virtual thread is held (virtual_hold.h) that may be initializing one of them. */
static void warm_up(JNIEnv *jni) {
    jthread self = NULL;
    if ((*the_agent.jvmti)->GetCurrentThread(the_agent.jvmti, &self) != JVMTI_ERROR_NONE) {
        return;
    }
    jobject snapshot = (*jni)->CallStaticObjectMethod(jni, snap.snapshot, snap.of, self);
    if (!jni_failed(jni, snapshot)) {
        (*jni)->DeleteLocalRef(jni, snapshot);
    }
    (*jni)->DeleteLocalRef(jni, self);
}

/* The ThreadSnapshot members; any one missing (another JDK's layout) means no snapshot. */
static void prepare(JNIEnv *jni) {
    const char *lock_sig = "Ljdk/internal/vm/ThreadSnapshot$OwnedLockType;";
    const char *blocker_sig = "Ljdk/internal/vm/ThreadSnapshot$BlockerLockType;";
    snap.snapshot = jni_global_class(jni, "jdk/internal/vm/ThreadSnapshot");
    jclass lock = (*jni)->FindClass(jni, "jdk/internal/vm/ThreadSnapshot$ThreadLock");
    if (jni_failed(jni, lock)) lock = NULL;
    jclass blocker = (*jni)->FindClass(jni, "jdk/internal/vm/ThreadSnapshot$ThreadBlocker");
    if (jni_failed(jni, blocker)) blocker = NULL;
    jclass element = (*jni)->FindClass(jni, "java/lang/StackTraceElement");
    if (jni_failed(jni, element)) element = NULL;
    int ok = snap.snapshot != NULL && lock != NULL && blocker != NULL && element != NULL;
    jmethodID of = NULL;
    if (ok) {
        of = (*jni)->GetStaticMethodID(jni, snap.snapshot, "of", "(Ljava/lang/Thread;)Ljdk/internal/vm/ThreadSnapshot;");
        snap.stack = (*jni)->GetFieldID(jni, snap.snapshot, "stackTrace", "[Ljava/lang/StackTraceElement;");
        snap.status = (*jni)->GetFieldID(jni, snap.snapshot, "threadStatus", "I");
        snap.locks = (*jni)->GetFieldID(jni, snap.snapshot, "locks", "[Ljdk/internal/vm/ThreadSnapshot$ThreadLock;");
        snap.blocker = (*jni)->GetFieldID(jni, snap.snapshot, "blocker", "Ljdk/internal/vm/ThreadSnapshot$ThreadBlocker;");
        snap.lock_depth = (*jni)->GetFieldID(jni, lock, "depth", "I");
        snap.lock_type = (*jni)->GetFieldID(jni, lock, "type", lock_sig);
        snap.lock_object = (*jni)->GetFieldID(jni, lock, "obj", "Ljava/lang/Object;");
        snap.blocker_type = (*jni)->GetFieldID(jni, blocker, "type", blocker_sig);
        snap.blocker_object = (*jni)->GetFieldID(jni, blocker, "obj", "Ljava/lang/Object;");
        snap.element_class = (*jni)->GetMethodID(jni, element, "getClassName", "()Ljava/lang/String;");
        snap.element_method = (*jni)->GetMethodID(jni, element, "getMethodName", "()Ljava/lang/String;");
        ok = !jni_cleared_exception(jni) && of != NULL && snap.stack != NULL && snap.status != NULL && snap.locks != NULL && snap.blocker != NULL
            && snap.lock_depth != NULL && snap.lock_type != NULL && snap.lock_object != NULL && snap.blocker_type != NULL
            && snap.blocker_object != NULL && snap.element_class != NULL && snap.element_method != NULL;
    }
    if (ok) {
        snap.type_locked = global_static(jni, "jdk/internal/vm/ThreadSnapshot$OwnedLockType", "LOCKED", lock_sig);
        snap.type_waiting_to_lock = global_static(jni, "jdk/internal/vm/ThreadSnapshot$BlockerLockType", "WAITING_TO_LOCK", blocker_sig);
        snap.type_waiting_on = global_static(jni, "jdk/internal/vm/ThreadSnapshot$BlockerLockType", "WAITING_ON", blocker_sig);
        ok = snap.type_locked != NULL && snap.type_waiting_to_lock != NULL && snap.type_waiting_on != NULL;
    }
    if (ok) {
        snap.of = of;
        warm_up(jni);
    }
    if (lock != NULL) (*jni)->DeleteLocalRef(jni, lock);
    if (blocker != NULL) (*jni)->DeleteLocalRef(jni, blocker);
    if (element != NULL) (*jni)->DeleteLocalRef(jni, element);
}

int thread_snapshot_available(JNIEnv *jni) {
    if (!snap.tried) {
        snap.tried = 1;
        prepare(jni);
    }
    return snap.of != NULL;
}

void thread_snapshot_release(JNIEnv *jni) {
    jobject refs[] = { snap.snapshot, snap.type_locked, snap.type_waiting_to_lock, snap.type_waiting_on };
    for (size_t i = 0; i < sizeof refs / sizeof refs[0]; i++) {
        if (refs[i] != NULL) {
            (*jni)->DeleteGlobalRef(jni, refs[i]);
        }
    }
    memset(&snap, 0, sizeof snap);
}
AGENT_RELEASE(thread_snapshot_release)

/* map[i], for the snapshot's frames 0..last, is the JVMTI depth of that frame: the snapshot's
 * frames are a subsequence of JVMTI's, matched in one pass, in order, by class and method. A frame
 * not found maps to count. */
static void match_depths(JNIEnv *jni, jobjectArray stack, jint last, const jmethodID *methods, jint count, jint *map) {
    jint j = 0;
    for (jint i = 0; i <= last; i++) {
        map[i] = count;
        jobject element = j < count ? (*jni)->GetObjectArrayElement(jni, stack, i) : NULL;
        if (jni_failed(jni, element)) {
            j = count;
            continue;
        }
        char *class_name = jni_call_string(jni, element, snap.element_class);
        char *method_name = jni_call_string(jni, element, snap.element_method);
        while (j < count && !(class_name != NULL && method_name != NULL && frames_method_is(jni, methods[j], class_name, method_name))) {
            j++;
        }
        if (j < count) {
            map[i] = j++;
        }
        free(class_name);
        free(method_name);
        (*jni)->DeleteLocalRef(jni, element);
    }
}

/* The owned monitors of the snapshot, at the snapshot's depths, but for the one it waits for: a
 * thread in Object.wait has let go of that monitor, whatever its frames say (ThreadMXBean and
 * JVMTI leave it out too). Returns the deepest depth, or -1. */
static jint read_owned(JNIEnv *jni, jobjectArray locks, jobject waited, lock_facts *f) {
    jsize lock_count = locks == NULL ? 0 : (*jni)->GetArrayLength(jni, locks);
    jint deepest = -1;
    if (lock_count > 0) {
        f->owned = calloc((size_t)lock_count, sizeof *f->owned);
    }
    for (jsize i = 0; i < lock_count && f->owned != NULL; i++) {
        jobject lock = (*jni)->GetObjectArrayElement(jni, locks, i);
        jobject type = lock == NULL ? NULL : (*jni)->GetObjectField(jni, lock, snap.lock_type);
        jobject object = lock == NULL ? NULL : (*jni)->GetObjectField(jni, lock, snap.lock_object);
        if (object != NULL && (*jni)->IsSameObject(jni, type, snap.type_locked)
                && (waited == NULL || !(*jni)->IsSameObject(jni, object, waited))) {
            owned_monitor *m = &f->owned[f->owned_count++];
            lock_facts_describe_object(jni, object, &m->lock);
            m->depth = (*jni)->GetIntField(jni, lock, snap.lock_depth);
            deepest = m->depth > deepest ? m->depth : deepest;
        }
        if (lock != NULL) (*jni)->DeleteLocalRef(jni, lock);
        if (type != NULL) (*jni)->DeleteLocalRef(jni, type);
        if (object != NULL) (*jni)->DeleteLocalRef(jni, object);
    }
    return deepest;
}

/* Whether the snapshot saw the thread in Object.wait, or entering its monitor again after it: the
 * snapshot names that monitor only from the wait frame's receiver, which a compiled native frame
 * does not keep. */
static int in_object_wait(const lock_witness *seen) {
    /* the state a ThreadSnapshot gives is java.lang.Thread.State's: waiting, not in Object.wait */
    int waiting_state = (seen->state & (JVMTI_THREAD_STATE_WAITING | JVMTI_THREAD_STATE_BLOCKED_ON_MONITOR_ENTER)) != 0;
    return waiting_state && seen->top_class != NULL && seen->top_method != NULL && strcmp(seen->top_class, "java.lang.Object") == 0
        && (strcmp(seen->top_method, "wait0") == 0 || strcmp(seen->top_method, "wait") == 0);
}

/* The monitor the snapshot is blocked entering or waits on, or NULL (a local reference). */
static jobject read_blocker(JNIEnv *jni, jobject snapshot, lock_facts *f) {
    jobject blocker = (*jni)->GetObjectField(jni, snapshot, snap.blocker);
    if (blocker == NULL) {
        return NULL;
    }
    jobject type = (*jni)->GetObjectField(jni, blocker, snap.blocker_type);
    jobject object = (*jni)->GetObjectField(jni, blocker, snap.blocker_object);
    int enter = (*jni)->IsSameObject(jni, type, snap.type_waiting_to_lock);
    if (object != NULL && (enter || (*jni)->IsSameObject(jni, type, snap.type_waiting_on))) {
        f->waiting = enter ? WAIT_ENTER : WAIT_NOTIFY;
        lock_facts_describe_object(jni, object, &f->waits_for);
    } else if (object != NULL) {
        (*jni)->DeleteLocalRef(jni, object);
        object = NULL;
    }
    if (type != NULL) (*jni)->DeleteLocalRef(jni, type);
    (*jni)->DeleteLocalRef(jni, blocker);
    return object;
}

int thread_snapshot_locks(JNIEnv *jni, jthread thread, const jmethodID *methods, jint count, lock_facts *f) {
    if (!thread_snapshot_available(jni)) {
        return -1;
    }
    if ((*jni)->PushLocalFrame(jni, 32) != 0) {
        jni_cleared_exception(jni);
        return -1;
    }
    virtual_hold hold = virtual_hold_take(jni, thread);
    jobject snapshot = NULL;
    if (hold == HOLD_SUSPENDED || hold == HOLD_NOT_NEEDED) {
        snapshot = (*jni)->CallStaticObjectMethod(jni, snap.snapshot, snap.of, thread);
        if (jni_failed(jni, snapshot)) {
            snapshot = NULL; /* ended meanwhile */
        }
    }
    virtual_hold_release(thread, hold);
    if (hold == HOLD_FAILED) {
        (*jni)->PopLocalFrame(jni, NULL);
        return -1;
    }
    int status = 0;
    if (snapshot == NULL) {
        (*jni)->PopLocalFrame(jni, NULL);
        return 0; /* ended: nothing to know */
    }
    jobjectArray stack = (*jni)->GetObjectField(jni, snapshot, snap.stack);
    jint snapshot_count = stack == NULL ? 0 : (*jni)->GetArrayLength(jni, stack);
    f->seen.kind = methods != NULL ? WITNESS_MAPPED : WITNESS_OWN_STACK;
    f->seen.state = (*jni)->GetIntField(jni, snapshot, snap.status) & JVMTI_JAVA_LANG_THREAD_STATE_MASK;
    lock_facts_witness_frames(jni, stack, &f->seen);
    if (methods != NULL && snapshot_count > 0) {
        match_depths(jni, stack, 0, methods, count, &f->seen.top_depth);
        if (f->seen.top_depth == count) {
            f->seen.top_depth = -1; /* none of them is its method */
        }
    }
    jobject waited = read_blocker(jni, snapshot, f);
    f->wait_unnamed = f->waiting == WAIT_NONE && in_object_wait(&f->seen);
    jobjectArray locks = (*jni)->GetObjectField(jni, snapshot, snap.locks);
    jint deepest = read_owned(jni, locks, waited, f);
    if (locks != NULL && (*jni)->GetArrayLength(jni, locks) > 0 && f->owned == NULL) {
        status = -1;
    }
    if (methods != NULL && deepest >= 0) {
        jint last = deepest < snapshot_count ? deepest : snapshot_count - 1;
        jint *map = last >= 0 ? malloc(((size_t)last + 1) * sizeof *map) : NULL;
        if (map != NULL) {
            match_depths(jni, stack, last, methods, count, map);
        }
        for (jint i = 0; i < f->owned_count; i++) {
            jint depth = f->owned[i].depth;
            f->owned[i].depth = map != NULL && depth >= 0 && depth <= last ? map[depth] : count;
        }
        free(map);
    }
    jni_cleared_exception(jni);
    (*jni)->PopLocalFrame(jni, NULL);
    return status;
}
