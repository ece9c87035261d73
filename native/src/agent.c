/* The VM entry points: Agent_OnLoad (start-up), Agent_OnAttach (live attach) and
 * Agent_OnUnload, the agent's lifecycle, and the `hello` and `detach` commands. */
#include "agent.h"

#include <string.h>
#include <time.h>
#include <unistd.h>

#include "alloc_count.h"
#include "capabilities.h"
#include "class_module.h"
#include "commands.h"
#include "frames.h"
#include "locks.h"
#include "park_blocker.h"
#include "events.h"
#include "server.h"
#include "thread_snapshot.h"
#include "vthreads.h"

agent the_agent;

enum { STATE_IDLE, STATE_RUNNING, STATE_STOPPING };
static int state = STATE_IDLE;

void agent_deallocate(void *memory) {
    if (memory != NULL) {
        (*the_agent.jvmti)->Deallocate(the_agent.jvmti, (unsigned char *)memory);
    }
}

static int set_state(int from, int to) {
    return __atomic_compare_exchange_n(&state, &from, to, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}

/* Options are "key=value" pairs separated by commas. The only key is "v", the protocol version,
 * and it must be 1. Anything else is refused, not ignored: no option can make this agent do
 * something (write a file, open a port) that this build does not know about. */
static int options_supported(const char *options) {
    const char *p = options == NULL ? "" : options;
    while (*p != '\0') {
        size_t n = strcspn(p, ",");
        if (n != strlen(PROTOCOL_OPTION) || strncmp(p, PROTOCOL_OPTION, n) != 0) {
            return 0;
        }
        p += n;
        if (*p == ',') {
            p++;
        }
    }
    return 1;
}

static int acquire_env(JavaVM *vm, agent_phase phase) {
    memset(&the_agent, 0, sizeof the_agent);
    the_agent.vm = vm;
    the_agent.phase = phase;
    /* Virtual threads need a JVMTI 21 environment; a JDK before 21 refuses that version. */
    if ((*vm)->GetEnv(vm, (void **)&the_agent.jvmti, JVMTICLI_JVMTI_VERSION_21) != JNI_OK
            && (*vm)->GetEnv(vm, (void **)&the_agent.jvmti, JVMTI_VERSION_11) != JNI_OK) {
        return AGENT_ERR_JVMTI_ENV;
    }
    if (capabilities_acquire(the_agent.jvmti, &the_agent.held) != JVMTI_ERROR_NONE) {
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

static void JNICALL server_main(jvmtiEnv *jvmti, JNIEnv *jni, void *arg) {
    (void)jvmti;
    (void)arg;
    server_run(jni);
    server_close();
    agent_release(jni);
}

int agent_start_server(JNIEnv *jni) {
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

void agent_release(JNIEnv *jni) {
    events_shutdown();
    locks_release(jni);
    park_blocker_release(jni);
    vthreads_release(jni);
    thread_snapshot_release(jni);
    frames_cache_clear();
    class_module_release(jni);
    (*jni)->DeleteGlobalRef(jni, the_agent.server_thread);
    the_agent.server_thread = NULL;
    dispose_env();
    __atomic_store_n(&state, STATE_IDLE, __ATOMIC_SEQ_CST);
}

static void JNICALL on_vm_init(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread) {
    (void)thread;
    /* VMInit is sent once; failing to switch it off costs nothing. */
    (void)(*jvmti)->SetEventNotificationMode(jvmti, JVMTI_DISABLE, JVMTI_EVENT_VM_INIT, NULL);
    if (agent_start_server(jni) != AGENT_OK) {
        dispose_env();
        set_state(STATE_RUNNING, STATE_IDLE);
    }
}

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved) {
    (void)reserved;
    if (!options_supported(options)) {
        return AGENT_ERR_OPTIONS;
    }
    if (!set_state(STATE_IDLE, STATE_RUNNING)) {
        return AGENT_OK;
    }
    int status = acquire_env(vm, PHASE_STARTUP);
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
        set_state(STATE_RUNNING, STATE_IDLE);
    }
    return status;
}

/* A detach that is still tearing down gets a moment to finish before a new attach. */
/* Returns STATE_IDLE when this call may start the agent (the state is then RUNNING), STATE_RUNNING
 * when a server is already serving, STATE_STOPPING when a detach is still tearing down after 2 s. */
static int wait_until_idle(void) {
    for (int i = 0; i < 200; i++) {
        if (set_state(STATE_IDLE, STATE_RUNNING)) {
            return STATE_IDLE;
        }
        if (__atomic_load_n(&state, __ATOMIC_SEQ_CST) == STATE_RUNNING) {
            return STATE_RUNNING;
        }
        struct timespec pause = { 0, 10 * 1000 * 1000 };
        nanosleep(&pause, NULL);
    }
    return STATE_STOPPING;
}

JNIEXPORT jint JNICALL Agent_OnAttach(JavaVM *vm, char *options, void *reserved) {
    (void)reserved;
    JNIEnv *jni;
    if (!options_supported(options)) {
        return AGENT_ERR_OPTIONS;
    }
    int found = wait_until_idle();
    if (found == STATE_STOPPING) {
        return AGENT_ERR_STOPPING;
    }
    if (found == STATE_RUNNING) {
        /* Already serving: one server per JVM. The CLI loads again when it finds no socket file
         * (a temp cleaner removed it), so have the server put it back now. */
        server_check_socket_soon();
        return AGENT_OK;
    }
    int status = acquire_env(vm, PHASE_ATTACH);
    if (status == AGENT_OK) {
        if ((*vm)->GetEnv(vm, (void **)&jni, JNI_VERSION_1_8) != JNI_OK) {
            status = AGENT_ERR_JVMTI_ENV;
        } else {
            status = agent_start_server(jni);
        }
        if (status != AGENT_OK) {
            dispose_env();
        }
    }
    if (status != AGENT_OK) {
        set_state(STATE_RUNNING, STATE_IDLE);
    }
    return status;
}

JNIEXPORT void JNICALL Agent_OnUnload(JavaVM *vm) {
    (void)vm;
    server_unlink();
}

static void write_property(command_ctx *ctx, const char *key, const char *property) {
    char *value = NULL;
    json_key(ctx->out, key);
    if ((*the_agent.jvmti)->GetSystemProperty(the_agent.jvmti, property, &value) == JVMTI_ERROR_NONE) {
        json_mutf8(ctx->out, value);
        (*the_agent.jvmti)->Deallocate(the_agent.jvmti, (unsigned char *)value);
    } else {
        json_null(ctx->out);
    }
}

void cmd_hello(command_ctx *ctx) {
    json_writer *w = ctx->out;
    command_result(ctx);
    json_begin_object(w);
    json_key(w, "agent");
    json_cstring(w, AGENT_VERSION);
    json_key(w, "protocol");
    json_int(w, PROTOCOL_VERSION);
    json_key(w, "pid");
    json_int(w, getpid());
    json_key(w, "phase");
    json_cstring(w, the_agent.phase == PHASE_STARTUP ? "startup" : "attach");
    json_key(w, "mallocBytes");
    json_int(w, alloc_count_held_bytes());
    json_key(w, "jvm");
    json_begin_object(w);
    write_property(ctx, "name", "java.vm.name");
    write_property(ctx, "vendor", "java.vm.vendor");
    write_property(ctx, "version", "java.vm.version");
    write_property(ctx, "specVersion", "java.vm.specification.version");
    write_property(ctx, "info", "java.vm.info");
    json_end_object(w);
    json_key(w, "capabilities");
    capabilities_write(w, &the_agent.held);
    json_key(w, "commands");
    dispatch_write_commands(w);
    json_end_object(w);
}

void cmd_detach(command_ctx *ctx) {
    command_result(ctx);
    json_begin_object(ctx->out);
    json_key(ctx->out, "detached");
    json_bool(ctx->out, 1);
    json_end_object(ctx->out);
    set_state(STATE_RUNNING, STATE_STOPPING);
    server_request_stop();
}
