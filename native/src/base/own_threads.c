#include "own_threads.h"

#include <stddef.h>
#include <time.h>

#include "agent.h"

#define OWN_THREADS_MAX 4

static jthread helpers[OWN_THREADS_MAX];

int own_threads_add(jthread helper) {
    for (size_t i = 0; i < OWN_THREADS_MAX; i++) {
        if (helpers[i] == NULL) {
            helpers[i] = helper;
            return 0;
        }
    }
    return -1;
}

void own_threads_remove(jthread helper) {
    for (size_t i = 0; i < OWN_THREADS_MAX; i++) {
        if (helpers[i] == helper) {
            helpers[i] = NULL;
        }
    }
}

int own_threads_contains(JNIEnv *jni, jthread thread) {
    if (the_agent.server_thread != NULL && (*jni)->IsSameObject(jni, thread, the_agent.server_thread)) {
        return 1;
    }
    for (size_t i = 0; i < OWN_THREADS_MAX; i++) {
        if (helpers[i] != NULL && (*jni)->IsSameObject(jni, thread, helpers[i])) {
            return 1;
        }
    }
    return 0;
}

int own_threads_stop(JNIEnv *jni, jrawMonitorID lock, int *run, const int *done, jthread *helper) {
    jvmtiEnv *jvmti = the_agent.jvmti;
    (*jvmti)->RawMonitorEnter(jvmti, lock);
    *run = 0;
    (*jvmti)->RawMonitorNotifyAll(jvmti, lock);
    (*jvmti)->RawMonitorExit(jvmti, lock);
    for (int waited = 0; !__atomic_load_n(done, __ATOMIC_SEQ_CST); waited++) {
        if (waited == 5000) {
            return -1;
        }
        struct timespec pause = { 0, 1000 * 1000 };
        nanosleep(&pause, NULL);
    }
    own_threads_remove(*helper);
    (*jni)->DeleteGlobalRef(jni, *helper);
    *helper = NULL;
    return 0;
}
