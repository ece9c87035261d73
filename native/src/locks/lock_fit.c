#include "lock_fit.h"

#include <string.h>

static int is_condition(const lock_ref *lock) {
    return lock->class_name != NULL && strstr(lock->class_name, "ConditionObject") != NULL;
}

lock_fit_result lock_fit(jint state, jint frame_count, jlong id, const lock_facts *f) {
    int blocked = (state & JVMTI_THREAD_STATE_BLOCKED_ON_MONITOR_ENTER) != 0;
    int in_wait = (state & JVMTI_THREAD_STATE_IN_OBJECT_WAIT) != 0;
    int parked = (state & JVMTI_THREAD_STATE_PARKED) != 0;
    if (f->waiting == WAIT_ENTER && (!blocked || is_condition(&f->waits_for) || (f->owner_id >= 0 && f->owner_id == id))) {
        return LOCK_FIT_NOT;
    }
    if (f->waiting == WAIT_NOTIFY && (!in_wait || blocked)) {
        return LOCK_FIT_NOT;
    }
    if (f->waiting >= WAIT_PARK && !parked) { /* WAIT_PARK and the kinds after it are parked threads */
        return LOCK_FIT_NOT;
    }
    for (jint i = 0; i < f->owned_count && frame_count > 0; i++) {
        if (f->owned[i].depth < -1 || f->owned[i].depth > frame_count) {
            return LOCK_FIT_NOT;
        }
    }
    int unnamed = blocked ? f->waiting != WAIT_ENTER : in_wait && f->waiting != WAIT_NOTIFY;
    return unnamed ? LOCK_FIT_NO_MONITOR : LOCK_FIT;
}
