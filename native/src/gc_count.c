#include "gc_count.h"

#include <string.h>

#include "agent.h"
#include "events.h"

static int64_t finished;
static int sessions; /* only the agent thread begins and ends */

/* Runs while the VM is stopped for the collection, so it only counts. */
static void JNICALL on_finish(jvmtiEnv *jvmti) {
    (void)jvmti;
    __atomic_add_fetch(&finished, 1, __ATOMIC_RELAXED);
}

static void add_callback(jvmtiEventCallbacks *callbacks) {
    callbacks->GarbageCollectionFinish = on_finish;
}

static jvmtiError set_capability(int take) {
    jvmtiCapabilities one;
    memset(&one, 0, sizeof one);
    one.can_generate_garbage_collection_events = 1;
    return take ? (*the_agent.jvmti)->AddCapabilities(the_agent.jvmti, &one)
                : (*the_agent.jvmti)->RelinquishCapabilities(the_agent.jvmti, &one);
}

int64_t gc_count_begin(void) {
    if (sessions == 0) {
        if (set_capability(1) != JVMTI_ERROR_NONE) {
            return -1;
        }
        if (events_install(add_callback) != JVMTI_ERROR_NONE || events_set(JVMTI_EVENT_GARBAGE_COLLECTION_FINISH, 1) != JVMTI_ERROR_NONE) {
            (void)set_capability(0);
            return -1;
        }
    }
    sessions++;
    return __atomic_load_n(&finished, __ATOMIC_RELAXED);
}

int64_t gc_count_end(int64_t began) {
    if (began < 0) {
        return -1;
    }
    int64_t count = __atomic_load_n(&finished, __ATOMIC_RELAXED) - began;
    if (--sessions == 0) {
        (void)events_set(JVMTI_EVENT_GARBAGE_COLLECTION_FINISH, 0);
        (void)set_capability(0);
    }
    return count;
}

int64_t gc_count_now(void) {
    return __atomic_load_n(&finished, __ATOMIC_RELAXED);
}
