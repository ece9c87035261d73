/* `alloc.start` / `alloc.stop`: heap allocation sampling with SampledObjectAlloc.
 *
 * Each sample is aggregated, in the callback on the allocating thread, by class and by
 * (class, stack). The class is identified by its signature string, fetched in the callback with
 * GetClassSignature and interned: this costs a short string copy per sample (a sample is taken
 * about once per interval bytes, 512 KiB by default), but pins no class (a global ref per class
 * would keep classes from unloading during the session), creates no JNI handles, and needs no
 * object comparisons. The stack is kept as jmethodIDs and bytecode indices; names and lines are
 * resolved at stop, on the agent thread, with whether each method's class is the JDK's (defined by the
 * boot or platform loader). Memory is allocated at start and freed at stop; a sample
 * that finds the tables full is still counted in the totals and reported as dropped. */
#include <stdio.h>
#include <string.h>

#include "agent.h"
#include "aggregate.h"
#include "answer.h"
#include "events.h"
#include "gc_count.h"
#include "method_table.h"

#define ALLOC_STACK_SLOTS 4096
#define ALLOC_MAX_CLASSES 2048
#define ALLOC_CLASS_ARENA (256 * 1024)
#define DEFAULT_INTERVAL (512 * 1024)

typedef struct {
    uint64_t samples;
    uint64_t bytes;
    uint64_t weight;
} class_totals;

static struct {
    int running;
    int client_id;
    jlong interval;
    jlong started_nanos;
    int64_t gcs_began;
    jrawMonitorID lock;
    event_gate gate;
    stack_table stacks;
    name_table classes;
    class_totals per_class[ALLOC_MAX_CLASSES];
    uint64_t samples;
    uint64_t bytes;
    uint64_t weight;
    uint64_t dropped_stacks;
    uint64_t dropped_classes;
} session;

void JNICALL alloc_on_sample(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jobject object, jclass klass, jlong size) {
    (void)jni;
    (void)thread;
    (void)object;
    if (!gate_enter(&session.gate)) {
        return;
    }
    jvmtiFrameInfo frames[STACK_MAX_FRAMES];
    jint depth = 0;
    char *signature = NULL;
    if ((*jvmti)->GetStackTrace(jvmti, NULL, 0, STACK_MAX_FRAMES, frames, &depth) != JVMTI_ERROR_NONE) {
        depth = 0;
    }
    if ((*jvmti)->GetClassSignature(jvmti, klass, &signature, NULL) != JVMTI_ERROR_NONE) {
        signature = NULL;
    }
    uint64_t bytes = size > 0 ? (uint64_t)size : 0;
    uint64_t weight = sample_weight(bytes, (uint64_t)session.interval);
    if ((*jvmti)->RawMonitorEnter(jvmti, session.lock) == JVMTI_ERROR_NONE) {
        session.samples++;
        session.bytes += bytes;
        session.weight += weight;
        int32_t cls = signature == NULL ? -1 : name_table_intern(&session.classes, signature);
        stack_entry *e = NULL;
        if (cls < 0) {
            session.dropped_classes++;
        } else {
            session.per_class[cls].samples++;
            session.per_class[cls].bytes += bytes;
            session.per_class[cls].weight += weight;
            e = stack_table_find_or_add(&session.stacks, cls, -1, frames, depth);
        }
        if (e != NULL) {
            e->count++;
            e->sum += bytes;
            e->weight += weight;
        } else {
            session.dropped_stacks++;
        }
        (*jvmti)->RawMonitorExit(jvmti, session.lock);
    }
    if (signature != NULL) {
        (*jvmti)->Deallocate(jvmti, (unsigned char *)signature);
    }
    gate_leave(&session.gate);
}

static void free_session(void) {
    jvmtiEnv *jvmti = the_agent.jvmti;
    stack_table_free(&session.stacks);
    name_table_free(&session.classes);
    if (session.lock != NULL) {
        (*jvmti)->DestroyRawMonitor(jvmti, session.lock);
        session.lock = NULL;
    }
    session.running = 0;
}

/* Events off, callbacks out, capability back; the aggregate stays until free_session. */
static int64_t stop_sampling(void) {
    (void)events_set(JVMTI_EVENT_SAMPLED_OBJECT_ALLOC, 0);
    int64_t gcs = gc_count_end(session.gcs_began);
    gate_close(&session.gate);
    (void)(*the_agent.jvmti)->SetHeapSamplingInterval(the_agent.jvmti, DEFAULT_INTERVAL);
    events_give_back_capability(FAMILY_ALLOC);
    return gcs;
}

void cmd_alloc_start(command_ctx *ctx) {
    jvmtiEnv *jvmti = the_agent.jvmti;
    char message[256];
    if (session.running) {
        command_fail(ctx, "busy", session.client_id == ctx->client_id
                     ? "allocation sampling is already running for this client"
                     : "allocation sampling is already running for another client of this JVM; only one session at a time");
        return;
    }
    int64_t interval = request_int(ctx->req, "interval", DEFAULT_INTERVAL);
    if (interval < 1 || interval > (int64_t)1 << 30) {
        command_fail(ctx, "bad_request", "interval must be between 1 byte and 1 GiB");
        return;
    }
    jvmtiError err = events_take_capability(FAMILY_ALLOC);
    if (err != JVMTI_ERROR_NONE) {
        command_fail(ctx, "capability_unavailable", events_capability_error(FAMILY_ALLOC, err, message, sizeof message));
        return;
    }
    memset(session.per_class, 0, sizeof session.per_class);
    session.samples = session.bytes = session.weight = 0;
    session.dropped_stacks = session.dropped_classes = 0;
    session.interval = interval;
    if ((err = (*jvmti)->CreateRawMonitor(jvmti, "jvmti-cli alloc", &session.lock)) != JVMTI_ERROR_NONE) {
        session.lock = NULL;
        events_give_back_capability(FAMILY_ALLOC);
        command_fail_jvmti(ctx, "CreateRawMonitor", err);
        return;
    }
    if (stack_table_init(&session.stacks, ALLOC_STACK_SLOTS) != 0
            || name_table_init(&session.classes, ALLOC_MAX_CLASSES, ALLOC_CLASS_ARENA) != 0) {
        free_session();
        events_give_back_capability(FAMILY_ALLOC);
        command_fail(ctx, "no_memory", "cannot allocate the sampling tables");
        return;
    }
    session.running = 1;
    session.client_id = ctx->client_id;
    session.started_nanos = events_now_nanos();
    gate_open(&session.gate);
    session.gcs_began = gc_count_begin();
    const char *what = "SetHeapSamplingInterval";
    err = (*jvmti)->SetHeapSamplingInterval(jvmti, (jint)interval);
    if (err == JVMTI_ERROR_NONE) {
        what = "SetEventCallbacks";
        err = events_install();
    }
    if (err == JVMTI_ERROR_NONE) {
        what = "SetEventNotificationMode(SampledObjectAlloc)";
        err = events_set(JVMTI_EVENT_SAMPLED_OBJECT_ALLOC, 1);
    }
    if (err != JVMTI_ERROR_NONE) {
        stop_sampling();
        free_session();
        command_fail_jvmti(ctx, what, err);
        return;
    }
    command_result(ctx);
    json_begin_object(ctx->out);
    json_key(ctx->out, "interval");
    json_int(ctx->out, interval);
    json_end_object(ctx->out);
}

static void write_answer(command_ctx *ctx, jlong elapsed, int64_t gcs) {
    json_writer *w = ctx->out;
    method_table methods;
    int have_methods = method_table_init(&methods, session.stacks.used * STACK_MAX_FRAMES + 16) == 0;
    methods.with_origin = 1;
    command_result(ctx);
    json_begin_object(w);
    json_key(w, "interval");
    json_int(w, session.interval);
    json_key(w, "durationNanos");
    json_int(w, elapsed);
    json_key(w, "samples");
    json_int(w, (int64_t)session.samples);
    json_key(w, "sampledBytes");
    json_int(w, (int64_t)session.bytes);
    json_key(w, "estimatedBytes");
    json_int(w, (int64_t)session.weight);
    json_key(w, "droppedStacks");
    json_int(w, (int64_t)session.dropped_stacks);
    json_key(w, "droppedClasses");
    json_int(w, (int64_t)session.dropped_classes);
    if (gcs >= 0) {
        json_key(w, "gcs");
        json_int(w, gcs);
    }
    json_key(w, "classes");
    json_begin_array(w);
    for (size_t i = 0; i < session.classes.count; i++) {
        json_begin_object(w);
        json_key(w, "name");
        json_mutf8(w, name_table_get(&session.classes, (int32_t)i));
        json_key(w, "samples");
        json_int(w, (int64_t)session.per_class[i].samples);
        json_key(w, "sampledBytes");
        json_int(w, (int64_t)session.per_class[i].bytes);
        json_key(w, "estimatedBytes");
        json_int(w, (int64_t)session.per_class[i].weight);
        json_end_object(w);
    }
    json_end_array(w);
    json_key(w, "stacks");
    json_begin_array(w);
    for (size_t i = 0; have_methods && i < session.stacks.capacity; i++) {
        const stack_entry *e = &session.stacks.slots[i];
        if (e->hash == 0) {
            continue;
        }
        json_begin_object(w);
        json_key(w, "class");
        json_int(w, e->key);
        json_key(w, "samples");
        json_int(w, (int64_t)e->count);
        json_key(w, "sampledBytes");
        json_int(w, (int64_t)e->sum);
        json_key(w, "estimatedBytes");
        json_int(w, (int64_t)e->weight);
        json_key(w, "frames");
        method_table_write_frames(&methods, w, e->frames, e->depth);
        json_end_object(w);
    }
    json_end_array(w);
    json_key(w, "methods");
    method_table_finish(have_methods ? &methods : NULL, ctx->jni, w);
    json_end_object(w);
}

void cmd_alloc_stop(command_ctx *ctx) {
    if (!session.running) {
        command_fail(ctx, "not_running", "no allocation sampling is running");
        return;
    }
    if (session.client_id != ctx->client_id) {
        command_fail(ctx, "not_owner", "the allocation sampling session belongs to another client");
        return;
    }
    int64_t gcs = stop_sampling();
    write_answer(ctx, events_now_nanos() - session.started_nanos, gcs);
    free_session();
}

void alloc_client_gone(int client_id) {
    if (session.running && session.client_id == client_id) {
        stop_sampling();
        free_session();
    }
}

void alloc_shutdown(void) {
    if (session.running) {
        stop_sampling();
        free_session();
    }
}
