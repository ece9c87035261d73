/* JVMTI events for the event-driven commands (alloc, contention, jit; their sessions: session.h).
 * SetEventCallbacks replaces every callback of the environment at once, so each module adds its
 * callbacks to one set kept here, and each family may be on while the others are.
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

/* Adds the callbacks that `add` sets to the environment's (SetEventCallbacks with them all). */
jvmtiError events_install(void (*add)(jvmtiEventCallbacks *callbacks));

/* The environment goes (detach): the next one starts with no callbacks. */
void events_forget(void);

/* Takes a capability an event needs (AddCapabilities) and records it in the_agent.held, so
 * `hello` lists it while it is held. */
jvmtiError events_take_capability(const jvmtiCapabilities *one);

/* Gives it back (RelinquishCapabilities). */
void events_give_back_capability(const jvmtiCapabilities *one);

/* A one-line message for a failed events_take_capability of the capability named name, in buf. */
const char *events_capability_error(const char *name, jvmtiError err, char *buf, size_t cap);

/* SetEventNotificationMode for every thread. */
jvmtiError events_set(jvmtiEvent event, int enabled);

/* The agent thread's JNIEnv (for work started when a client goes). */
JNIEnv *events_jni(void);

/* Monotonic nanoseconds. */
jlong events_now_nanos(void);

#endif
