#include "own_threads.h"

#include <stddef.h>

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
