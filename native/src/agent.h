/* State shared by the agent's parts: one agent per JVM, so one instance of this. */
#ifndef JVMTICLI_AGENT_H
#define JVMTICLI_AGENT_H

#include <jni.h>
#include <jvmti.h>

#define AGENT_VERSION "0.1.0"
#define PROTOCOL_VERSION 2
#define PROTOCOL_OPTION "v=2" /* the one agent option: the protocol version */

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

/* Gives back memory JVMTI allocated (NULL is fine). */
void agent_deallocate(void *memory);

/* Starts the server thread (needs a live JNIEnv). Returns an agent_status. */
int agent_start_server(JNIEnv *jni);

/* Called on the server thread when it stops: gives back everything the agent took. */
void agent_release(JNIEnv *jni);

#endif
