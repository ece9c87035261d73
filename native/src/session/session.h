/* The session engine: what every event-driven command (alloc, contention, jit, profile, pauses)
 * shares, the way async-profiler's engines share one interface. An engine is one file that fills in a
 * session_engine: its capability, its events and their callbacks, and what it does at each step;
 * the machinery here does the rest, the same way for all of them:
 * - one session of an engine per JVM: a second start gets `busy`, a stop from another client
 *   `not_owner`, a stop with none running `not_running`;
 * - a session is owned by the connection that started it: when that closes, the session stops;
 *   detach stops every session;
 * - start: check the arguments, take the capability, create the raw monitor that guards the
 *   engine's tables, open them, open the gate, count collections (if asked), turn the events on;
 *   any failure undoes every step before it and answers what failed;
 * - stop: the window's end (window_end, events still on), events off, callbacks out (gate closed), the engine's helpers stopped, the capability
 *   given back, then the report written and the tables freed. */
#ifndef JVMTICLI_SESSION_H
#define JVMTICLI_SESSION_H

#include <jni.h>
#include <jvmti.h>
#include <stddef.h>
#include <stdint.h>

#include "answer.h"
#include "events.h"
#include "json.h"

/* The client_id of a session no connection owns: only detach stops it (jit --follow). */
#define SESSION_UNOWNED (-1)

typedef struct {
    jvmtiEvent event;
    const char *name;       /* as a failure names it: SetEventNotificationMode(<name>) */
} session_event;

/* A session's state, kept by the machinery; the engine's callbacks use lock and gate. */
typedef struct {
    jrawMonitorID lock;     /* guards the engine's tables, from open to close */
    event_gate gate;        /* a callback enters it before it touches the tables */
    int running;
    int client_id;          /* the connection that owns it, or SESSION_UNOWNED */
    jlong started_nanos;
    int64_t gcs_began;      /* gc_count_begin's value, or -1 */
} session_state;

typedef struct {
    const char *what;                           /* in messages: "allocation sampling" */
    const char *lock_name;                      /* the raw monitor's name */
    const char *capability;                     /* the capability its events need, as hello lists it */
    void (*wants)(jvmtiCapabilities *c);        /* sets that capability */
    const session_event *events;                /* on at start in this order, off at stop */
    size_t event_count;
    int counts_gcs;                             /* its report says how many collections finished */
    void (*callbacks)(jvmtiEventCallbacks *c);  /* sets the callback of each of its events */
    /* Optional: reads the arguments before anything is taken; on failure answers and returns -1. */
    int (*check)(command_ctx *ctx);
    /* Before its events are on, under nothing: empties and allocates its tables, starts its helper
     * threads, applies its arguments to the JVM. On failure answers, gives back what it took and
     * returns -1. */
    int (*open)(command_ctx *ctx);
    /* Optional: once its events are on (jit replays the code compiled before). On failure answers
     * and returns -1; the session is then stopped and closed. */
    int (*armed)(command_ctx *ctx);
    /* Optional: the window's end, on a stop that reports, while its events are still on and its
     * callbacks still run: what is still going on then (the waits not yet over) is read here. */
    void (*window_end)(JNIEnv *jni);
    /* Optional: after the callbacks are out: stops its helper threads (jni NULL when there is no
     * JNIEnv) and puts back what open changed in the JVM. */
    void (*quiesce)(JNIEnv *jni);
    void (*started)(json_writer *w);            /* the start answer, one JSON value (session_start) */
    /* The stop answer (session_stop): command_result and one JSON value; gcs is -1 unless
     * counts_gcs and collections could be counted. */
    void (*report)(command_ctx *ctx, jlong duration_nanos, int64_t gcs);
    /* Frees its tables; -1 when they must outlive the session (a helper thread that did not stop):
     * the session then stays taken. */
    int (*close)(void);
    session_state *state;
} session_engine;

/* The `<engine>.start` command: begins a session owned by ctx's client and answers started. */
void session_start(const session_engine *e, command_ctx *ctx);

/* The `<engine>.stop` command: ends the client's session and answers its report. */
void session_stop(const session_engine *e, command_ctx *ctx);

/* Begins a session owned by client_id (or SESSION_UNOWNED). 0, or -1 when ctx has been answered
 * with the failure. */
int session_begin(const session_engine *e, command_ctx *ctx, int client_id);

/* Ends a session without a report. */
void session_end(const session_engine *e, JNIEnv *jni);

/* The connection closed: ends the sessions it owns, each in a local frame of its own (as detach's). */
void session_client_gone(int client_id);

/* Whether a running session is owned by client_id. */
int session_owned_by(int client_id);

/* Detach: ends every session, each in a local frame of its own. */
void session_shutdown(void);

#endif
