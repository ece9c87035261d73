#include "thread_state.h"

const char *thread_state_name(jint state) {
    switch (state & JVMTI_JAVA_LANG_THREAD_STATE_MASK) {
    case JVMTI_JAVA_LANG_THREAD_STATE_NEW: return "NEW";
    case JVMTI_JAVA_LANG_THREAD_STATE_TERMINATED: return "TERMINATED";
    case JVMTI_JAVA_LANG_THREAD_STATE_RUNNABLE: return "RUNNABLE";
    case JVMTI_JAVA_LANG_THREAD_STATE_BLOCKED: return "BLOCKED";
    case JVMTI_JAVA_LANG_THREAD_STATE_WAITING: return "WAITING";
    case JVMTI_JAVA_LANG_THREAD_STATE_TIMED_WAITING: return "TIMED_WAITING";
    default: return "UNKNOWN";
    }
}

static const struct {
    jint bit;
    const char *name;
} flags[] = {
    { JVMTI_THREAD_STATE_SLEEPING, "sleeping" },
    { JVMTI_THREAD_STATE_IN_OBJECT_WAIT, "in_object_wait" },
    { JVMTI_THREAD_STATE_PARKED, "parked" },
    { JVMTI_THREAD_STATE_SUSPENDED, "suspended" },
    { JVMTI_THREAD_STATE_INTERRUPTED, "interrupted" },
    { JVMTI_THREAD_STATE_IN_NATIVE, "in_native" },
};

void thread_state_write_flags(json_writer *w, jint state) {
    json_begin_array(w);
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++) {
        if (state & flags[i].bit) {
            json_cstring(w, flags[i].name);
        }
    }
    json_end_array(w);
}

/* java.lang.Thread.State, in ordinal order. */
static const jint java_states[] = {
    0,
    JVMTI_THREAD_STATE_ALIVE | JVMTI_THREAD_STATE_RUNNABLE,
    JVMTI_THREAD_STATE_ALIVE | JVMTI_THREAD_STATE_BLOCKED_ON_MONITOR_ENTER,
    JVMTI_THREAD_STATE_ALIVE | JVMTI_THREAD_STATE_WAITING | JVMTI_THREAD_STATE_WAITING_INDEFINITELY,
    JVMTI_THREAD_STATE_ALIVE | JVMTI_THREAD_STATE_WAITING | JVMTI_THREAD_STATE_WAITING_WITH_TIMEOUT,
    JVMTI_THREAD_STATE_TERMINATED,
};

int thread_state_of_java_ordinal(jint ordinal, jint *state) {
    if (ordinal < 0 || ordinal >= (jint)(sizeof java_states / sizeof java_states[0])) {
        return -1;
    }
    *state = java_states[ordinal];
    return 0;
}
