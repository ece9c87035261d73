#include "events.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "agent.h"
#include "gc_count.h"

static int installed_for; /* the environment generation the callbacks were set for */
static jvmtiEnv *installed_env;

void gate_close(event_gate *g) {
    __atomic_store_n(&g->open, 0, __ATOMIC_SEQ_CST);
    while (__atomic_load_n(&g->inside, __ATOMIC_SEQ_CST) != 0) {
        struct timespec pause = { 0, 100 * 1000 };
        nanosleep(&pause, NULL);
    }
}

jvmtiError events_install(void) {
    if (installed_for && installed_env == the_agent.jvmti) {
        return JVMTI_ERROR_NONE;
    }
    jvmtiEventCallbacks callbacks;
    memset(&callbacks, 0, sizeof callbacks);
    callbacks.SampledObjectAlloc = alloc_on_sample;
    callbacks.MonitorContendedEnter = contention_on_enter;
    callbacks.MonitorContendedEntered = contention_on_entered;
    callbacks.CompiledMethodLoad = jit_on_load;
    callbacks.CompiledMethodUnload = jit_on_unload;
    callbacks.DynamicCodeGenerated = jit_on_stub;
    callbacks.GarbageCollectionFinish = gc_on_finish;
    jvmtiError err = (*the_agent.jvmti)->SetEventCallbacks(the_agent.jvmti, &callbacks, sizeof callbacks);
    if (err == JVMTI_ERROR_NONE) {
        installed_for = 1;
        installed_env = the_agent.jvmti;
    }
    return err;
}

static void family_capability(event_family family, jvmtiCapabilities *c, int value) {
    switch (family) {
    case FAMILY_ALLOC: c->can_generate_sampled_object_alloc_events = value; break;
    case FAMILY_CONTENTION: c->can_generate_monitor_events = value; break;
    case FAMILY_JIT: c->can_generate_compiled_method_load_events = value; break;
    }
}

const char *events_capability_name(event_family family) {
    switch (family) {
    case FAMILY_ALLOC: return "can_generate_sampled_object_alloc_events";
    case FAMILY_CONTENTION: return "can_generate_monitor_events";
    case FAMILY_JIT: return "can_generate_compiled_method_load_events";
    }
    return "?";
}

jvmtiError events_take_capability(event_family family) {
    jvmtiCapabilities one;
    memset(&one, 0, sizeof one);
    family_capability(family, &one, 1);
    jvmtiError err = (*the_agent.jvmti)->AddCapabilities(the_agent.jvmti, &one);
    if (err == JVMTI_ERROR_NONE) {
        family_capability(family, &the_agent.held, 1);
    }
    return err;
}

void events_give_back_capability(event_family family) {
    jvmtiCapabilities one;
    memset(&one, 0, sizeof one);
    family_capability(family, &one, 1);
    (void)(*the_agent.jvmti)->RelinquishCapabilities(the_agent.jvmti, &one);
    family_capability(family, &the_agent.held, 0);
}

const char *events_capability_error(event_family family, jvmtiError err, char *buf, size_t cap) {
    if (err == JVMTI_ERROR_NOT_AVAILABLE) {
        snprintf(buf, cap, "%s is not available: another JVMTI agent in this JVM holds it, or the JVM does not "
                 "offer it (AddCapabilities: JVMTI_ERROR_NOT_AVAILABLE)", events_capability_name(family));
    } else {
        snprintf(buf, cap, "AddCapabilities(%s) failed: JVMTI error %d", events_capability_name(family), (int)err);
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

void events_shutdown(void) {
    alloc_shutdown();
    contention_shutdown();
    jit_shutdown();
    installed_for = 0;
    installed_env = NULL;
}
