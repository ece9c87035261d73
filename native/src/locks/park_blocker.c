#include "park_blocker.h"

#include <string.h>

#include "agent.h"
#include "jni_util.h"

#define CONDITION_CLASSES 2
#define SYNCHRONIZER_CLASSES 3

/* Global class references, looked up on first use; a class that could not be found stays NULL. */
static struct {
    int ready;
    jclass condition[CONDITION_CLASSES];
    jclass synchronizer[SYNCHRONIZER_CLASSES];
} classes;

static void prepare(JNIEnv *jni) {
    if (classes.ready) {
        return;
    }
    classes.condition[0] = jni_global_class(jni, "java/util/concurrent/locks/AbstractQueuedSynchronizer$ConditionObject");
    classes.condition[1] = jni_global_class(jni, "java/util/concurrent/locks/AbstractQueuedLongSynchronizer$ConditionObject");
    classes.synchronizer[0] = jni_global_class(jni, "java/util/concurrent/locks/AbstractQueuedSynchronizer");
    classes.synchronizer[1] = jni_global_class(jni, "java/util/concurrent/locks/AbstractQueuedLongSynchronizer");
    classes.synchronizer[2] = jni_global_class(jni, "java/util/concurrent/locks/StampedLock");
    classes.ready = 1;
}

static int is_instance_of_any(JNIEnv *jni, jobject object, const jclass *candidates, int count) {
    for (int i = 0; i < count; i++) {
        if (candidates[i] != NULL && (*jni)->IsInstanceOf(jni, object, candidates[i])) {
            return 1;
        }
    }
    return 0;
}

wait_kind park_blocker_kind(JNIEnv *jni, jobject blocker) {
    prepare(jni);
    if (is_instance_of_any(jni, blocker, classes.condition, CONDITION_CLASSES)) {
        return WAIT_SIGNAL;
    }
    return is_instance_of_any(jni, blocker, classes.synchronizer, SYNCHRONIZER_CLASSES) ? WAIT_ACQUIRE : WAIT_PARK;
}

void park_blocker_release(JNIEnv *jni) {
    for (int i = 0; i < CONDITION_CLASSES; i++) {
        if (classes.condition[i] != NULL) (*jni)->DeleteGlobalRef(jni, classes.condition[i]);
    }
    for (int i = 0; i < SYNCHRONIZER_CLASSES; i++) {
        if (classes.synchronizer[i] != NULL) (*jni)->DeleteGlobalRef(jni, classes.synchronizer[i]);
    }
    memset(&classes, 0, sizeof classes);
}
AGENT_RELEASE(park_blocker_release)
