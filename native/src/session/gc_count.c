#include "gc_count.h"

#include <string.h>

#include "agent.h"
#include "events.h"

static int64_t finished;
static int sessions; /* only the agent thread begins and ends */
static int waiters;  /* threads in gc_count_wait_past: only then does a finish notify */
/* Created by the first session, destroyed by gc_count_release once the event is off: a callback
 * the VM runs (at a safepoint, which the agent's JVMTI calls that turn the event off wait out)
 * finds it whenever it looks. */
static jrawMonitorID finish_lock;

/* Runs while the VM is stopped for the collection: counts, and wakes a waiter if there is one
 * (raw monitors are allowed here, JNI is not). */
static void JNICALL on_finish(jvmtiEnv *jvmti) {
    __atomic_add_fetch(&finished, 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&waiters, __ATOMIC_SEQ_CST) > 0 && (*jvmti)->RawMonitorEnter(jvmti, finish_lock) == JVMTI_ERROR_NONE) {
        (void)(*jvmti)->RawMonitorNotifyAll(jvmti, finish_lock);
        (void)(*jvmti)->RawMonitorExit(jvmti, finish_lock);
    }
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
        if (finish_lock == NULL && (*the_agent.jvmti)->CreateRawMonitor(the_agent.jvmti, "jvmti-cli gc finish", &finish_lock) != JVMTI_ERROR_NONE) {
            finish_lock = NULL;
            return -1;
        }
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

int gc_count_wait_past(int64_t seen, int64_t timeout_millis) {
    jvmtiEnv *jvmti = the_agent.jvmti;
    if (seen < 0 || finish_lock == NULL) {
        return 0;
    }
    int64_t deadline = events_now_nanos() / 1000000 + timeout_millis;
    __atomic_add_fetch(&waiters, 1, __ATOMIC_SEQ_CST);
    if ((*jvmti)->RawMonitorEnter(jvmti, finish_lock) == JVMTI_ERROR_NONE) {
        int64_t left;
        while (__atomic_load_n(&finished, __ATOMIC_SEQ_CST) == seen && (left = deadline - events_now_nanos() / 1000000) > 0
                && (*jvmti)->RawMonitorWait(jvmti, finish_lock, left) == JVMTI_ERROR_NONE) {
        }
        (void)(*jvmti)->RawMonitorExit(jvmti, finish_lock);
    }
    __atomic_sub_fetch(&waiters, 1, __ATOMIC_SEQ_CST);
    return __atomic_load_n(&finished, __ATOMIC_SEQ_CST) != seen;
}

void gc_count_release(void) {
    if (sessions == 0 && finish_lock != NULL) {
        (void)(*the_agent.jvmti)->DestroyRawMonitor(the_agent.jvmti, finish_lock);
        finish_lock = NULL;
    }
}
AGENT_FORGET(gc_count_release)
