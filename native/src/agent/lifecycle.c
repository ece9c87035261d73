/* The VM entry points: Agent_OnLoad (start-up), Agent_OnAttach (live attach) and
 * Agent_OnUnload, and the agent's lifecycle: the server thread it starts, and everything given
 * back when that thread stops. The top of the agent's modules: nothing depends on this file. */
#include <string.h>
#include <time.h>

#include "agent.h"
#include "capabilities.h"
#include "server.h"
#include "session.h"

/* Options are separated by commas: "v=N", the protocol version, which must be this build's
 * (PROTOCOL_OPTION), and, at start-up only, "exception-events" (asks for
 * can_generate_exception_events, which HotSpot grants only then and which costs the JVM for its
 * whole life: capabilities.h). Anything else is refused, not ignored: no option can make this agent
 * do something (write a file, open a port) that this build does not know about. Returns 1 when
 * they are supported, with *exception_events set when asked for. */
static int options_supported(const char *options, int *exception_events) {
    const char *p = options == NULL ? "" : options;
    *exception_events = 0;
    while (*p != '\0') {
        size_t n = strcspn(p, ",");
        if (n == strlen(EXCEPTION_EVENTS_OPTION) && strncmp(p, EXCEPTION_EVENTS_OPTION, n) == 0) {
            *exception_events = 1;
        } else if (n != strlen(PROTOCOL_OPTION) || strncmp(p, PROTOCOL_OPTION, n) != 0) {
            return 0;
        }
        p += n;
        if (*p == ',') {
            p++;
        }
    }
    return 1;
}

static int acquire_env(JavaVM *vm, agent_phase phase, int exception_events) {
    memset(&the_agent, 0, sizeof the_agent);
    the_agent.vm = vm;
    the_agent.phase = phase;
    /* Virtual threads need a JVMTI 21 environment; a JDK before 21 refuses that version. */
    if ((*vm)->GetEnv(vm, (void **)&the_agent.jvmti, JVMTICLI_JVMTI_VERSION_21) != JNI_OK
            && (*vm)->GetEnv(vm, (void **)&the_agent.jvmti, JVMTI_VERSION_11) != JNI_OK) {
        return AGENT_ERR_JVMTI_ENV;
    }
    if (capabilities_acquire(the_agent.jvmti, &the_agent.held, exception_events) != JVMTI_ERROR_NONE) {
        (*the_agent.jvmti)->DisposeEnvironment(the_agent.jvmti);
        return AGENT_ERR_CAPABILITIES;
    }
    return AGENT_OK;
}

/* Nothing is left to do if either call fails: disposing the environment gives back its
 * capabilities and events anyway, and there is nobody to report to. */
static void dispose_env(void) {
    (void)(*the_agent.jvmti)->RelinquishCapabilities(the_agent.jvmti, &the_agent.held);
    (void)(*the_agent.jvmti)->DisposeEnvironment(the_agent.jvmti);
    the_agent.jvmti = NULL;
}

static void release(JNIEnv *jni);

static void JNICALL server_main(jvmtiEnv *jvmti, JNIEnv *jni, void *arg) {
    (void)jvmti;
    (void)arg;
    server_run(jni);
    (void)agent_move(AGENT_RUNNING, AGENT_STOPPING); /* the server also returns when poll fails */
    server_close();
    release(jni);
}

static int start_server(JNIEnv *jni) {
    int status = server_open();
    if (status != AGENT_OK) {
        return status;
    }
    jclass thread_class = (*jni)->FindClass(jni, "java/lang/Thread");
    jmethodID init = thread_class == NULL ? NULL
        : (*jni)->GetMethodID(jni, thread_class, "<init>", "(Ljava/lang/String;)V");
    jstring name = init == NULL ? NULL : (*jni)->NewStringUTF(jni, "jvmti-cli agent");
    jobject thread = name == NULL ? NULL : (*jni)->NewObject(jni, thread_class, init, name);
    if (thread != NULL) {
        the_agent.server_thread = (*jni)->NewGlobalRef(jni, thread);
    }
    if ((*jni)->ExceptionCheck(jni)) {
        (*jni)->ExceptionClear(jni);
    }
    if (thread_class != NULL) (*jni)->DeleteLocalRef(jni, thread_class);
    if (name != NULL) (*jni)->DeleteLocalRef(jni, name);
    if (thread != NULL) (*jni)->DeleteLocalRef(jni, thread);
    if (the_agent.server_thread == NULL
            || (*the_agent.jvmti)->RunAgentThread(the_agent.jvmti, the_agent.server_thread, server_main,
                                                  NULL, JVMTI_THREAD_NORM_PRIORITY) != JVMTI_ERROR_NONE) {
        server_close();
        if (the_agent.server_thread != NULL) {
            (*jni)->DeleteGlobalRef(jni, the_agent.server_thread);
            the_agent.server_thread = NULL;
        }
        return AGENT_ERR_THREAD;
    }
    return AGENT_OK;
}

/* On the server thread when it stops: gives back everything the agent took. */
static void release(JNIEnv *jni) {
    session_shutdown();
    agent_release_all(jni);
    (*jni)->DeleteGlobalRef(jni, the_agent.server_thread);
    the_agent.server_thread = NULL;
    dispose_env();
    (void)agent_move(AGENT_STOPPING, AGENT_IDLE);
}

static void JNICALL on_vm_init(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread) {
    (void)thread;
    /* VMInit is sent once; failing to switch it off costs nothing. */
    (void)(*jvmti)->SetEventNotificationMode(jvmti, JVMTI_DISABLE, JVMTI_EVENT_VM_INIT, NULL);
    if (start_server(jni) != AGENT_OK) {
        dispose_env();
        agent_move(AGENT_RUNNING, AGENT_IDLE);
    }
}

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved) {
    (void)reserved;
    int exception_events;
    if (!options_supported(options, &exception_events)) {
        return AGENT_ERR_OPTIONS;
    }
    if (!agent_move(AGENT_IDLE, AGENT_RUNNING)) {
        return AGENT_OK;
    }
    int status = acquire_env(vm, PHASE_STARTUP, exception_events);
    if (status == AGENT_OK) {
        jvmtiEventCallbacks callbacks;
        memset(&callbacks, 0, sizeof callbacks);
        callbacks.VMInit = on_vm_init;
        jvmtiEnv *jvmti = the_agent.jvmti;
        if ((*jvmti)->SetEventCallbacks(jvmti, &callbacks, sizeof callbacks) != JVMTI_ERROR_NONE
                || (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_VM_INIT, NULL) != JVMTI_ERROR_NONE) {
            dispose_env();
            status = AGENT_ERR_EVENTS;
        }
    }
    if (status != AGENT_OK) {
        agent_move(AGENT_RUNNING, AGENT_IDLE);
    }
    return status;
}

/* A detach that is still tearing down gets a moment to finish before a new attach. */
/* Returns AGENT_IDLE when this call may start the agent (the state is then RUNNING), AGENT_RUNNING
 * when a server is already serving, AGENT_STOPPING when a detach is still tearing down after 2 s. */
static int wait_until_idle(void) {
    for (int i = 0; i < 200; i++) {
        if (agent_move(AGENT_IDLE, AGENT_RUNNING)) {
            return AGENT_IDLE;
        }
        if (agent_current() == AGENT_RUNNING) {
            return AGENT_RUNNING;
        }
        struct timespec pause = { 0, 10 * 1000 * 1000 };
        nanosleep(&pause, NULL);
    }
    return AGENT_STOPPING;
}

JNIEXPORT jint JNICALL Agent_OnAttach(JavaVM *vm, char *options, void *reserved) {
    (void)reserved;
    JNIEnv *jni;
    int exception_events;
    /* exception-events is for start-up: a live JVM no longer offers the capability */
    if (!options_supported(options, &exception_events) || exception_events) {
        return AGENT_ERR_OPTIONS;
    }
    int found = wait_until_idle();
    if (found == AGENT_STOPPING) {
        return AGENT_ERR_STOPPING;
    }
    if (found == AGENT_RUNNING) {
        /* Already serving: one server per JVM. The CLI loads again when it finds no socket file
         * (a temp cleaner removed it), so have the server put it back now. */
        server_check_socket_soon();
        return AGENT_OK;
    }
    int status = acquire_env(vm, PHASE_ATTACH, 0);
    if (status == AGENT_OK) {
        if ((*vm)->GetEnv(vm, (void **)&jni, JNI_VERSION_1_8) != JNI_OK) {
            status = AGENT_ERR_JVMTI_ENV;
        } else {
            status = start_server(jni);
        }
        if (status != AGENT_OK) {
            dispose_env();
        }
    }
    if (status != AGENT_OK) {
        agent_move(AGENT_RUNNING, AGENT_IDLE);
    }
    return status;
}

JNIEXPORT void JNICALL Agent_OnUnload(JavaVM *vm) {
    (void)vm;
    server_unlink();
}
