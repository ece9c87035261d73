/* JVMTI events for the event-driven commands (alloc, contention, jit). SetEventCallbacks
 * replaces every callback of the environment at once, so the callbacks of all three families
 * are installed here, together, and each family may be on while the others are.
 *
 * Event callbacks run on application threads (allocation, contention) or on the JVM's service
 * thread (compiled code), concurrently with the agent thread that starts and stops sessions. An
 * event_gate keeps a session's memory alive while a callback might still be using it: disabling
 * an event does not wait for callbacks already running, so stopping closes the gate and waits for
 * the callbacks inside it to leave before anything is freed. */
#ifndef JVMTICLI_EVENTS_H
#define JVMTICLI_EVENTS_H

#include <jni.h>
#include <jvmti.h>

typedef enum { FAMILY_ALLOC, FAMILY_CONTENTION, FAMILY_JIT } event_family;

typedef struct {
    int open;
    int inside;
} event_gate;

/* A callback enters the gate before touching session state; 0: the session is not running. */
static inline int gate_enter(event_gate *g) {
    __atomic_add_fetch(&g->inside, 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&g->open, __ATOMIC_SEQ_CST)) {
        return 1;
    }
    __atomic_sub_fetch(&g->inside, 1, __ATOMIC_SEQ_CST);
    return 0;
}

static inline void gate_leave(event_gate *g) {
    __atomic_sub_fetch(&g->inside, 1, __ATOMIC_SEQ_CST);
}

static inline void gate_open(event_gate *g) {
    __atomic_store_n(&g->open, 1, __ATOMIC_SEQ_CST);
}

/* Closes the gate and waits until no callback is inside it. */
void gate_close(event_gate *g);

/* Installs the combined callbacks (once per environment). */
jvmtiError events_install(void);

/* Takes the capability the family's events need (AddCapabilities) and records it in
 * the_agent.held, so `hello` lists it while it is held. */
jvmtiError events_take_capability(event_family family);

/* Gives the family's capability back (RelinquishCapabilities). */
void events_give_back_capability(event_family family);

/* The capability's name, as `hello` lists it. */
const char *events_capability_name(event_family family);

/* A one-line message for a failed events_take_capability, in buf. */
const char *events_capability_error(event_family family, jvmtiError err, char *buf, size_t cap);

/* SetEventNotificationMode for every thread. */
jvmtiError events_set(jvmtiEvent event, int enabled);

/* The agent thread's JNIEnv (for work started from dispatch_client_gone). */
JNIEnv *events_jni(void);

/* Monotonic nanoseconds. */
jlong events_now_nanos(void);

/* The callbacks, one family per file. */
void JNICALL alloc_on_sample(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jobject object, jclass klass, jlong size);
void JNICALL contention_on_enter(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jobject object);
void JNICALL contention_on_entered(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jobject object);
void JNICALL jit_on_load(jvmtiEnv *jvmti, jmethodID method, jint code_size, const void *code_addr, jint map_length,
                         const jvmtiAddrLocationMap *map, const void *compile_info);
void JNICALL jit_on_unload(jvmtiEnv *jvmti, jmethodID method, const void *code_addr);
void JNICALL jit_on_stub(jvmtiEnv *jvmti, const char *name, const void *address, jint length);

/* Stops every session (detach): events off, capabilities back, memory freed. */
void alloc_shutdown(void);
void contention_shutdown(void);
void jit_shutdown(void);
void alloc_client_gone(int client_id);
void contention_client_gone(int client_id);
void events_shutdown(void);

#endif
