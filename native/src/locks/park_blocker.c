#include "park_blocker.h"

#include <stdio.h>
#include <string.h>

#include "agent.h"
#include "jni_util.h"

#define CONDITION_CLASSES 2
#define QUEUE_KINDS 3
/* A wait queue is walked from its tail for at most this many nodes: a thread parked in an acquire
 * enqueued itself before it parked, so it is near the tail unless thousands queued behind it. */
#define QUEUE_WALK_LIMIT 65536

/* A synchronizer class with a wait queue: its tail field, its nodes' prev and waiter fields, and
 * how a node tells a shared acquire: by its class (JDK 14+: AQS's SharedNode, StampedLock's
 * ReaderNode, whose other readers hang on cowaiters), or by nextWaiter holding the SHARED marker
 * (AQS before JDK 14). A field that is not found stays NULL; the mode is then not known. */
typedef struct {
    jclass synchronizer;
    jfieldID tail;
    jfieldID prev;
    jfieldID waiter;
    jclass shared_node;
    jfieldID cowaiters;
    jfieldID next_waiter;
    jobject shared_marker;
} wait_queue;

/* Global references, looked up on first use; a class that could not be found stays NULL. */
static struct {
    int ready;
    jclass condition[CONDITION_CLASSES];
    wait_queue queue[QUEUE_KINDS];
} classes;

static jfieldID optional_field(JNIEnv *jni, jclass klass, const char *name, const char *type) {
    jfieldID field = klass == NULL ? NULL : (*jni)->GetFieldID(jni, klass, name, type);
    jni_cleared_exception(jni); /* another JDK's layout: that way of telling the mode is not there */
    return field;
}

static void prepare_queue(JNIEnv *jni, wait_queue *q, const char *synchronizer, const char *node, const char *shared_node) {
    q->synchronizer = jni_global_class(jni, synchronizer);
    jclass node_class = (*jni)->FindClass(jni, node);
    if (q->synchronizer == NULL || jni_failed(jni, node_class)) {
        return;
    }
    char node_type[160];
    int fits = snprintf(node_type, sizeof node_type, "L%s;", node) < (int)sizeof node_type;
    q->tail = fits ? optional_field(jni, q->synchronizer, "tail", node_type) : NULL;
    q->prev = fits ? optional_field(jni, node_class, "prev", node_type) : NULL;
    q->waiter = optional_field(jni, node_class, "waiter", "Ljava/lang/Thread;");
    if (q->waiter == NULL) {
        q->waiter = optional_field(jni, node_class, "thread", "Ljava/lang/Thread;");
        q->next_waiter = fits ? optional_field(jni, node_class, "nextWaiter", node_type) : NULL;
        jfieldID marker = fits ? (*jni)->GetStaticFieldID(jni, node_class, "SHARED", node_type) : NULL;
        jobject shared = jni_failed(jni, marker) ? NULL : (*jni)->GetStaticObjectField(jni, node_class, marker);
        q->shared_marker = jni_failed(jni, shared) ? NULL : (*jni)->NewGlobalRef(jni, shared);
        if (shared != NULL) (*jni)->DeleteLocalRef(jni, shared);
    } else if (shared_node != NULL) {
        q->shared_node = jni_global_class(jni, shared_node);
        if (q->shared_node != NULL) {
            char cowaiters_type[160];
            if (snprintf(cowaiters_type, sizeof cowaiters_type, "L%s;", shared_node) < (int)sizeof cowaiters_type) {
                q->cowaiters = optional_field(jni, q->shared_node, "cowaiters", cowaiters_type);
            }
        }
    }
    (*jni)->DeleteLocalRef(jni, node_class);
}

static void prepare(JNIEnv *jni) {
    if (classes.ready) {
        return;
    }
    classes.condition[0] = jni_global_class(jni, "java/util/concurrent/locks/AbstractQueuedSynchronizer$ConditionObject");
    classes.condition[1] = jni_global_class(jni, "java/util/concurrent/locks/AbstractQueuedLongSynchronizer$ConditionObject");
    prepare_queue(jni, &classes.queue[0], "java/util/concurrent/locks/AbstractQueuedSynchronizer",
                  "java/util/concurrent/locks/AbstractQueuedSynchronizer$Node",
                  "java/util/concurrent/locks/AbstractQueuedSynchronizer$SharedNode");
    prepare_queue(jni, &classes.queue[1], "java/util/concurrent/locks/AbstractQueuedLongSynchronizer",
                  "java/util/concurrent/locks/AbstractQueuedLongSynchronizer$Node",
                  "java/util/concurrent/locks/AbstractQueuedLongSynchronizer$SharedNode");
    prepare_queue(jni, &classes.queue[2], "java/util/concurrent/locks/StampedLock",
                  "java/util/concurrent/locks/StampedLock$Node", "java/util/concurrent/locks/StampedLock$ReaderNode");
    classes.ready = 1;
}

static int is_condition(JNIEnv *jni, jobject blocker) {
    for (int i = 0; i < CONDITION_CLASSES; i++) {
        if (classes.condition[i] != NULL && (*jni)->IsInstanceOf(jni, blocker, classes.condition[i])) {
            return 1;
        }
    }
    return 0;
}

static const wait_queue *queue_of(JNIEnv *jni, jobject blocker) {
    for (int i = 0; i < QUEUE_KINDS; i++) {
        if (classes.queue[i].synchronizer != NULL && (*jni)->IsInstanceOf(jni, blocker, classes.queue[i].synchronizer)) {
            return &classes.queue[i];
        }
    }
    return NULL;
}

/* Whether node's waiter is thread. */
static int waits_in(JNIEnv *jni, const wait_queue *q, jobject node, jthread thread) {
    jobject waiter = (*jni)->GetObjectField(jni, node, q->waiter);
    if (jni_failed(jni, waiter)) {
        return 0;
    }
    int same = (*jni)->IsSameObject(jni, waiter, thread);
    (*jni)->DeleteLocalRef(jni, waiter);
    return same;
}

/* Whether thread waits among a shared node's cowaiters (StampedLock's readers after the first). */
static int among_cowaiters(JNIEnv *jni, const wait_queue *q, jobject node, jthread thread, int *budget) {
    jobject next = (*jni)->GetObjectField(jni, node, q->cowaiters);
    while (!jni_failed(jni, next) && (*budget)-- > 0) {
        int found = waits_in(jni, q, next, thread);
        jobject after = found ? NULL : (*jni)->GetObjectField(jni, next, q->cowaiters);
        (*jni)->DeleteLocalRef(jni, next);
        if (found) {
            return 1;
        }
        next = after;
    }
    if (next != NULL) (*jni)->DeleteLocalRef(jni, next);
    return 0;
}

static int is_shared_node(JNIEnv *jni, const wait_queue *q, jobject node) {
    if (q->shared_node != NULL) {
        return (*jni)->IsInstanceOf(jni, node, q->shared_node);
    }
    jobject next_waiter = (*jni)->GetObjectField(jni, node, q->next_waiter);
    if (jni_failed(jni, next_waiter)) {
        return 0;
    }
    int shared = (*jni)->IsSameObject(jni, next_waiter, q->shared_marker);
    (*jni)->DeleteLocalRef(jni, next_waiter);
    return shared;
}

/* WAIT_ACQUIRE or WAIT_ACQUIRE_SHARED from the mode of thread's node in the blocker's wait queue;
 * WAIT_ACQUIRE_UNKNOWN when the node is not found (it left the queue, or is deeper than the walk)
 * or this JDK's queue is not one read here. */
static wait_kind acquire_mode(JNIEnv *jni, const wait_queue *q, jobject blocker, jthread thread) {
    int readable = q->tail != NULL && q->prev != NULL && q->waiter != NULL
        && (q->shared_node != NULL || (q->next_waiter != NULL && q->shared_marker != NULL));
    if (!readable || thread == NULL) {
        return WAIT_ACQUIRE_UNKNOWN;
    }
    int budget = QUEUE_WALK_LIMIT;
    wait_kind mode = WAIT_ACQUIRE_UNKNOWN;
    jobject node = (*jni)->GetObjectField(jni, blocker, q->tail);
    while (!jni_failed(jni, node) && budget-- > 0 && mode == WAIT_ACQUIRE_UNKNOWN) {
        int shared = is_shared_node(jni, q, node);
        if (waits_in(jni, q, node, thread) || (shared && q->cowaiters != NULL && among_cowaiters(jni, q, node, thread, &budget))) {
            mode = shared ? WAIT_ACQUIRE_SHARED : WAIT_ACQUIRE;
        }
        jobject prev = mode == WAIT_ACQUIRE_UNKNOWN ? (*jni)->GetObjectField(jni, node, q->prev) : NULL;
        (*jni)->DeleteLocalRef(jni, node);
        node = prev;
    }
    if (node != NULL) (*jni)->DeleteLocalRef(jni, node);
    return mode;
}

wait_kind park_blocker_kind(JNIEnv *jni, jobject blocker, jthread thread) {
    prepare(jni);
    if (is_condition(jni, blocker)) {
        return WAIT_SIGNAL;
    }
    const wait_queue *q = queue_of(jni, blocker);
    return q == NULL ? WAIT_PARK : acquire_mode(jni, q, blocker, thread);
}

void park_blocker_release(JNIEnv *jni) {
    for (int i = 0; i < CONDITION_CLASSES; i++) {
        if (classes.condition[i] != NULL) (*jni)->DeleteGlobalRef(jni, classes.condition[i]);
    }
    for (int i = 0; i < QUEUE_KINDS; i++) {
        wait_queue *q = &classes.queue[i];
        if (q->synchronizer != NULL) (*jni)->DeleteGlobalRef(jni, q->synchronizer);
        if (q->shared_node != NULL) (*jni)->DeleteGlobalRef(jni, q->shared_node);
        if (q->shared_marker != NULL) (*jni)->DeleteGlobalRef(jni, q->shared_marker);
    }
    memset(&classes, 0, sizeof classes);
}
AGENT_RELEASE(park_blocker_release)
