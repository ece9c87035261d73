#include "locks.h"

#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "jni_util.h"
#include "jvmti_source.h"
#include "management_source.h"
#include "park_blocker.h"
#include "snapshot_source.h"
#include "thread_facts.h"
#include "thread_snapshot.h"

/* JNI handles for parked threads, looked up once per agent run. */
static struct {
    int ready;
    jclass lock_support;
    jmethodID get_blocker;
    jfieldID park_blocker;      /* Thread.parkBlocker, which getBlocker reads; NULL when not found */
    jclass ownable_synchronizer;
    jfieldID exclusive_owner;
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

static int prepare(JNIEnv *jni) {
    if (jni_handles.ready) {
        return 0;
    }
    if (prepare_parking(jni) != 0 || management_source_prepare(jni) != 0) {
        locks_release(jni);
        return -1;
    }
    jni_handles.ready = 1;
    return 0;
}

void locks_release(JNIEnv *jni) {
    if (jni_handles.lock_support != NULL) (*jni)->DeleteGlobalRef(jni, jni_handles.lock_support);
    if (jni_handles.ownable_synchronizer != NULL) (*jni)->DeleteGlobalRef(jni, jni_handles.ownable_synchronizer);
    memset(&jni_handles, 0, sizeof jni_handles);
    management_source_release(jni);
}
AGENT_RELEASE(locks_release)

/* What LockSupport.getBlocker(thread) returns, read from the field it reads where that was found:
 * a field read rather than a call into Java, for every parked virtual thread of a walk. */
static jobject park_blocker(JNIEnv *jni, jthread thread) {
    if (jni_handles.park_blocker != NULL) {
        return (*jni)->GetObjectField(jni, thread, jni_handles.park_blocker);
    }
    return (*jni)->CallStaticObjectMethod(jni, jni_handles.lock_support, jni_handles.get_blocker, thread);
}

/* The facts of a thread parked on blocker (not NULL). */
static void describe_parked(JNIEnv *jni, jobject blocker, jthread thread, lock_facts *f) {
    f->waiting = park_blocker_kind(jni, blocker, thread);
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
    describe_parked(jni, blocker, s->thread, f);
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

int locks_collect_parked_on(JNIEnv *jni, jobject blocker, jthread thread, lock_facts *facts) {
    if (prepare(jni) != 0) {
        return -1;
    }
    describe_parked(jni, blocker, thread, facts);
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

int locks_needed(const lock_subject *s, int want_owned) {
    return lock_subject_needs_thread_info(s, want_owned) || (s->state & JVMTI_THREAD_STATE_PARKED) != 0;
}

int locks_asks_source(const lock_subject *s, int want_owned) {
    return is_jvmti_source() || lock_subject_needs_thread_info(s, want_owned);
}

int locks_collect_one(JNIEnv *jni, const lock_subject *subject, jint max_depth, int want_owned, int *usage_calls_left,
                      lock_facts *facts) {
    if (!is_snapshot_source(jni, want_owned)) {
        return locks_collect(jni, subject, 1, max_depth, want_owned, usage_calls_left, facts);
    }
    facts->owner_id = -1;
    return prepare(jni) != 0 ? -1 : snapshot_source_collect(jni, subject, max_depth, facts);
}

int locks_name_owners(JNIEnv *jni, const lock_subject *subjects, size_t count, int want_owned, lock_facts *facts) {
    if (!is_snapshot_source(jni, want_owned)) {
        return 0; /* the other sources name every owner themselves */
    }
    return prepare(jni) != 0 ? -1 : snapshot_source_name_owners(jni, subjects, count, facts);
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
        unsigned char *needs_walk = calloc(count > 0 ? count : 1, 1);
        if (needs_walk == NULL) {
            return -1;
        }
        status = jvmti_source_collect(jni, subjects, count, want_owned, usage_calls_left, needs_walk, facts);
        int any_walk = 0;
        for (size_t i = 0; i < count; i++) {
            if (needs_walk[i] && subjects[i].is_virtual) {
                status = -1; /* what ThreadMXBean would fill in: it knows no virtual thread */
                needs_walk[i] = 0;
            }
            any_walk |= needs_walk[i];
        }
        if (any_walk) {
            status |= management_source_collect(jni, subjects, count, needs_walk, max_depth, want_owned, facts);
        }
        free(needs_walk);
    } else if (is_snapshot_source(jni, want_owned)) {
        for (size_t i = 0; i < count; i++) {
            status |= snapshot_source_collect(jni, &subjects[i], max_depth, &facts[i]);
        }
        status |= snapshot_source_name_owners(jni, subjects, count, facts);
    } else {
        status = management_source_collect(jni, subjects, count, NULL, max_depth, want_owned, facts);
    }
    return status;
}

static void write_ref(json_writer *w, const lock_ref *ref) {
    json_field_mutf8(w, "class", ref->class_name);
    json_field_int(w, "hash", (uint32_t)ref->hash);
}

void locks_write(json_writer *w, const lock_facts *f, int want_owned) {
    static const char *kinds[] = { "none", "enter", "notify", "park", "signal", "acquire", "acquire", "acquire" };
    if (want_owned) {
        json_begin_array_field(w, "locked");
        for (jint i = 0; i < f->owned_count; i++) {
            json_begin_object(w);
            write_ref(w, &f->owned[i].lock);
            json_field_int(w, "depth", f->owned[i].depth);
            json_end_object(w);
        }
        json_end_array(w);
    }
    if (f->waiting != WAIT_NONE) {
        json_begin_object_field(w, "waitingFor");
        json_field_cstring(w, "kind", kinds[f->waiting]);
        if (f->waiting == WAIT_ACQUIRE || f->waiting == WAIT_ACQUIRE_SHARED) {
            json_field_bool(w, "shared", f->waiting == WAIT_ACQUIRE_SHARED);
        }
        write_ref(w, &f->waits_for);
        json_field_int(w, "ownerId", f->owner_id);
        if (f->owner_unknown) {
            json_field_bool(w, "ownerUnknown", 1);
        }
        json_end_object(w);
    }
    if (f->wait_unnamed) {
        json_field_bool(w, "waitUnnamed", 1);
    }
}
