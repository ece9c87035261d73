#include "session.h"

#include <stdio.h>
#include <string.h>

#include "agent.h"
#include "gc_count.h"
#include "jni_util.h"

#define SESSION_MAX_ENGINES 16

/* Every engine that has begun a session, for client_gone and shutdown; only the agent thread
 * begins and ends sessions. */
static const session_engine *engines[SESSION_MAX_ENGINES];

/* 0, or -1 when the table is full (raise SESSION_MAX_ENGINES). */
static int remember(const session_engine *e) {
    for (size_t i = 0; i < SESSION_MAX_ENGINES; i++) {
        if (engines[i] == e || engines[i] == NULL) {
            engines[i] = e;
            return 0;
        }
    }
    return -1;
}

/* Whether another engine's session is running with the same capability (trace's and parks' both
 * retransform classes): it is given back only by the last of them. */
static int capability_still_used(const session_engine *e) {
    for (size_t i = 0; i < SESSION_MAX_ENGINES; i++) {
        if (engines[i] != NULL && engines[i] != e && engines[i]->state->running && strcmp(engines[i]->capability, e->capability) == 0) {
            return 1;
        }
    }
    return 0;
}

static void give_back_capability(const session_engine *e) {
    if (capability_still_used(e)) {
        return;
    }
    jvmtiCapabilities one;
    memset(&one, 0, sizeof one);
    e->wants(&one);
    events_give_back_capability(&one);
}

/* Events off, callbacks out, helpers stopped, capability back; returns the collections counted. */
static int64_t quiesce(const session_engine *e, JNIEnv *jni) {
    session_state *s = e->state;
    for (size_t i = 0; i < e->event_count; i++) {
        (void)events_set(e->events[i].event, 0);
    }
    int64_t gcs = gc_count_end(s->gcs_began);
    s->gcs_began = -1;
    gate_close(&s->gate);
    if (e->quiesce != NULL) {
        e->quiesce(jni);
    }
    give_back_capability(e);
    return gcs;
}

static void close_session(const session_engine *e) {
    session_state *s = e->state;
    if (e->close() != 0) {
        return;
    }
    (*the_agent.jvmti)->DestroyRawMonitor(the_agent.jvmti, s->lock);
    s->lock = NULL;
    s->running = 0;
}

int session_begin(const session_engine *e, command_ctx *ctx, int client_id) {
    jvmtiEnv *jvmti = the_agent.jvmti;
    session_state *s = e->state;
    char message[256];
    if (s->running) {
        snprintf(message, sizeof message, s->client_id == ctx->client_id ? "%s is already running for this client"
                 : "%s is already running for another client of this JVM; only one session at a time", e->what);
        command_fail(ctx, "busy", message);
        return -1;
    }
    if (remember(e) != 0) {
        command_fail(ctx, "internal", "more session engines than SESSION_MAX_ENGINES");
        return -1;
    }
    if (e->check != NULL && e->check(ctx) != 0) {
        return -1;
    }
    jvmtiCapabilities one;
    memset(&one, 0, sizeof one);
    e->wants(&one);
    jvmtiError err = events_take_capability(&one);
    if (err != JVMTI_ERROR_NONE) {
        command_fail(ctx, "capability_unavailable", events_capability_error(e->capability, err, message, sizeof message));
        return -1;
    }
    if ((err = (*jvmti)->CreateRawMonitor(jvmti, e->lock_name, &s->lock)) != JVMTI_ERROR_NONE) {
        s->lock = NULL;
        give_back_capability(e);
        command_fail_jvmti(ctx, "CreateRawMonitor", err);
        return -1;
    }
    if (e->open(ctx) != 0) {
        (*jvmti)->DestroyRawMonitor(jvmti, s->lock);
        s->lock = NULL;
        give_back_capability(e);
        return -1;
    }
    s->running = 1;
    s->client_id = client_id;
    s->started_nanos = events_now_nanos();
    gate_open(&s->gate);
    s->gcs_began = e->counts_gcs ? gc_count_begin() : -1;
    snprintf(message, sizeof message, "SetEventCallbacks");
    err = events_install(e->callbacks);
    for (size_t i = 0; err == JVMTI_ERROR_NONE && i < e->event_count; i++) {
        snprintf(message, sizeof message, "SetEventNotificationMode(%s)", e->events[i].name);
        err = events_set(e->events[i].event, 1);
    }
    if (err != JVMTI_ERROR_NONE) {
        command_fail_jvmti(ctx, message, err);
    }
    if (err != JVMTI_ERROR_NONE || (e->armed != NULL && e->armed(ctx) != 0)) {
        session_end(e, ctx->jni);
        return -1;
    }
    return 0;
}

void session_end(const session_engine *e, JNIEnv *jni) {
    (void)quiesce(e, jni);
    close_session(e);
}

void session_start(const session_engine *e, command_ctx *ctx) {
    if (session_begin(e, ctx, ctx->client_id) != 0) {
        return;
    }
    command_result(ctx);
    e->started(ctx->out);
}

void session_stop(const session_engine *e, command_ctx *ctx) {
    session_state *s = e->state;
    char message[160];
    if (!s->running) {
        snprintf(message, sizeof message, "no %s is running", e->what);
        command_fail(ctx, "not_running", message);
        return;
    }
    if (s->client_id != ctx->client_id) {
        snprintf(message, sizeof message, "the %s session belongs to another client", e->what);
        command_fail(ctx, "not_owner", message);
        return;
    }
    if (e->window_end != NULL) {
        e->window_end(ctx->jni);
    }
    int64_t gcs = quiesce(e, ctx->jni);
    e->report(ctx, events_now_nanos() - s->started_nanos, gcs);
    close_session(e);
}

/* Ends a session outside any command, in a local frame of its own: the agent thread never returns
 * to Java, so the local references its teardown makes (async-profiler's stop lists the threads)
 * would otherwise stay for the agent's life. Without room for a frame, the session still ends. */
static void end_outside_command(const session_engine *e) {
    JNIEnv *jni = events_jni();
    if (jni == NULL) {
        session_end(e, NULL);
    } else if ((*jni)->PushLocalFrame(jni, JNI_COMMAND_LOCALS) != 0) {
        jni_cleared_exception(jni);
        session_end(e, jni);
    } else {
        session_end(e, jni);
        (*jni)->PopLocalFrame(jni, NULL);
    }
}

void session_client_gone(int client_id) {
    for (size_t i = 0; i < SESSION_MAX_ENGINES && engines[i] != NULL; i++) {
        if (engines[i]->state->running && engines[i]->state->client_id == client_id) {
            end_outside_command(engines[i]);
        }
    }
}

int session_owned_by(int client_id) {
    for (size_t i = 0; i < SESSION_MAX_ENGINES && engines[i] != NULL; i++) {
        if (engines[i]->state->running && engines[i]->state->client_id == client_id) {
            return 1;
        }
    }
    return 0;
}

void session_shutdown(void) {
    for (size_t i = 0; i < SESSION_MAX_ENGINES && engines[i] != NULL; i++) {
        if (engines[i]->state->running) {
            end_outside_command(engines[i]);
        }
    }
}
