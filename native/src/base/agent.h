/* State shared by the agent's parts: one agent per JVM, so one instance of this. The lowest
 * module: every other may use it, it uses none (the lifecycle that fills it in is lifecycle.c). */
#ifndef JVMTICLI_AGENT_H
#define JVMTICLI_AGENT_H

#include <jni.h>
#include <jvmti.h>

#define AGENT_VERSION "0.1.0"
#define PROTOCOL_VERSION 7
#define PROTOCOL_OPTION "v=7" /* the agent option every load gives: the protocol version */
#define EXCEPTION_EVENTS_OPTION "exception-events" /* at start-up: exceptions can say caught or not */

/* Agent_OnAttach/Agent_OnLoad return codes; the CLI turns them into messages. */
enum agent_status {
    AGENT_OK = 0,
    AGENT_ERR_JVMTI_ENV = 101,
    AGENT_ERR_CAPABILITIES = 102,
    AGENT_ERR_SOCKET_DIR = 103,
    AGENT_ERR_SOCKET = 104,
    AGENT_ERR_THREAD = 105,
    AGENT_ERR_OPTIONS = 106,
    AGENT_ERR_EVENTS = 107,
    AGENT_ERR_STOPPING = 108
};

typedef enum { PHASE_ATTACH, PHASE_STARTUP } agent_phase;

typedef struct {
    JavaVM *vm;
    jvmtiEnv *jvmti;
    agent_phase phase;
    jvmtiCapabilities held;   /* what AddCapabilities granted */
    jthread server_thread;    /* global ref to the agent's own thread */
} agent;

/* The one agent of this JVM; valid while the server runs. */
extern agent the_agent;

/* What a module took for the agent's run (JNI references, raw monitors, caches) is given back
 * when the agent stops (detach, or the JVM's end) by a function the module declares at file scope
 * beside what it takes: AGENT_RELEASE(fn) for a void fn(JNIEnv *), AGENT_FORGET(fn) for a void
 * fn(void). The linker gathers them, so the lifecycle keeps no list a new module could be left
 * out of. They run on the agent's thread after every session has ended, in no set order: none may
 * depend on another. */
typedef void (*agent_release_fn)(JNIEnv *jni);
#define AGENT_RELEASE(fn) \
    static const agent_release_fn agent_release_##fn __attribute__((used, section("agent_releases"))) = fn;
#define AGENT_FORGET(fn) \
    static void agent_forget_##fn(JNIEnv *jni) { (void)jni; fn(); } \
    AGENT_RELEASE(agent_forget_##fn)

/* Runs every AGENT_RELEASE and AGENT_FORGET function. */
void agent_release_all(JNIEnv *jni);

/* Gives back memory JVMTI allocated (NULL is fine). */
void agent_deallocate(void *memory);

/* Where the agent is in its life: IDLE (not loaded, or unloaded after a detach), RUNNING (serving),
 * STOPPING (a detach is tearing it down; the server returns after the current request). */
typedef enum { AGENT_IDLE, AGENT_RUNNING, AGENT_STOPPING } agent_state;

/* Moves the state from `from` to `to` if it is `from` (atomically): 1 if it moved. */
int agent_move(agent_state from, agent_state to);

/* The state now (any thread). */
agent_state agent_current(void);

#endif
