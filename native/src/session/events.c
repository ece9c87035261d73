#include "events.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "agent.h"

static jvmtiEventCallbacks installed; /* every callback set so far in this environment */

void gate_close(event_gate *g) {
    __atomic_store_n(&g->open, 0, __ATOMIC_SEQ_CST);
    while (__atomic_load_n(&g->inside, __ATOMIC_SEQ_CST) != 0) {
        struct timespec pause = { 0, 100 * 1000 };
        nanosleep(&pause, NULL);
    }
}

jvmtiError events_install(void (*add)(jvmtiEventCallbacks *callbacks)) {
    jvmtiEventCallbacks wanted = installed;
    add(&wanted);
    if (memcmp(&wanted, &installed, sizeof wanted) == 0) {
        return JVMTI_ERROR_NONE;
    }
    jvmtiError err = (*the_agent.jvmti)->SetEventCallbacks(the_agent.jvmti, &wanted, sizeof wanted);
    if (err == JVMTI_ERROR_NONE) {
        installed = wanted;
    }
    return err;
}

void events_forget(void) {
    memset(&installed, 0, sizeof installed);
}
AGENT_FORGET(events_forget)

/* jvmtiCapabilities is bit-fields only: as bytes, OR adds capabilities and AND NOT removes them. */
static void update_held(const jvmtiCapabilities *one, int held) {
    unsigned char *to = (unsigned char *)&the_agent.held;
    const unsigned char *bits = (const unsigned char *)one;
    for (size_t i = 0; i < sizeof *one; i++) {
        to[i] = held ? (unsigned char)(to[i] | bits[i]) : (unsigned char)(to[i] & ~bits[i]);
    }
}

jvmtiError events_take_capability(const jvmtiCapabilities *one) {
    jvmtiError err = (*the_agent.jvmti)->AddCapabilities(the_agent.jvmti, one);
    if (err == JVMTI_ERROR_NONE) {
        update_held(one, 1);
    }
    return err;
}

void events_give_back_capability(const jvmtiCapabilities *one) {
    (void)(*the_agent.jvmti)->RelinquishCapabilities(the_agent.jvmti, one);
    update_held(one, 0);
}

const char *events_capability_error(const char *name, jvmtiError err, char *buf, size_t cap) {
    if (err == JVMTI_ERROR_NOT_AVAILABLE) {
        snprintf(buf, cap, "%s is not available: another JVMTI agent in this JVM holds it, or the JVM does not "
                 "offer it (AddCapabilities: JVMTI_ERROR_NOT_AVAILABLE)", name);
    } else {
        snprintf(buf, cap, "AddCapabilities(%s) failed: JVMTI error %d", name, (int)err);
    }
    return buf;
}

jvmtiError events_set(jvmtiEvent event, int enabled) {
    return (*the_agent.jvmti)->SetEventNotificationMode(the_agent.jvmti, enabled ? JVMTI_ENABLE : JVMTI_DISABLE, event, NULL);
}

JNIEnv *events_jni(void) {
    JNIEnv *jni = NULL;
    if ((*the_agent.vm)->GetEnv(the_agent.vm, (void **)&jni, JNI_VERSION_1_8) != JNI_OK) {
        return NULL;
    }
    return jni;
}

jlong events_now_nanos(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (jlong)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}
