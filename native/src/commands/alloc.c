/* `alloc.start` / `alloc.stop`: heap allocation sampling with SampledObjectAlloc, a session engine
 * (session.h).
 *
 * Each sample is aggregated, in the callback on the allocating thread, by class and by
 * (class, stack). The class is identified by its signature string, fetched in the callback with
 * GetClassSignature and interned: this costs a short string copy per sample (a sample is taken
 * about once per interval bytes, 512 KiB by default), but pins no class (a global ref per class
 * would keep classes from unloading during the session), creates no JNI handles, and needs no
 * object comparisons. The stack is kept as jmethodIDs and bytecode indices; names and lines are
 * resolved at stop, on the agent thread, with whether each method's class is the JDK's (defined by the
 * boot or platform loader). Memory is allocated at start and freed at stop; a sample
 * that finds the tables full is still counted in the totals and reported as dropped.
 *
 * Live mode (`alloc --live`): each sample also gets a weak ref in alloc_live's table, and the
 * classes and stacks count only the sampled objects still alive at stop that survived at least
 * minAge collections, with the youngest and oldest age of each; the totals still count every
 * sample taken. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "aggregate.h"
#include "alloc_live.h"
#include "answer.h"
#include "heap_paths.h"
#include "method_table.h"
#include "session.h"

#define ALLOC_STACK_SLOTS 4096
#define ALLOC_MAX_CLASSES 2048
#define ALLOC_CLASS_ARENA (256 * 1024)
#define DEFAULT_INTERVAL (512 * 1024)
#define MAX_MIN_AGE 1000000
#define DEFAULT_LIVE_BUDGET ((int64_t)8 << 20)
#define MAX_LIVE_BYTES ((int64_t)1 << 40)

/* The youngest and oldest survivor of a class or stack, in collections survived. */
typedef struct {
    uint32_t youngest;
    uint32_t oldest;
} age_range;

typedef struct {
    uint64_t samples;
    uint64_t bytes;
    uint64_t weight;
} sample_totals;

static struct {
    session_state run;
    jlong interval;
    stack_table stacks;
    name_table classes;
    sample_totals per_class[ALLOC_MAX_CLASSES];
    uint64_t samples;
    uint64_t bytes;
    uint64_t weight;
    uint64_t dropped_stacks;
    uint64_t dropped_classes;
    int live;
    int weak_refs_cleared_in_pauses;        /* live mode: the client knows the collector does */
    int64_t live_budget;                    /* live mode: sampled bytes followed at once */
    int64_t live_largest;                   /* live mode: the largest sample followed; 0: any */
    int64_t min_age;
    age_range *stack_ages;                  /* live mode: per stack table slot */
    age_range class_ages[ALLOC_MAX_CLASSES];
    sample_totals survivors;                /* live mode, at stop: at least min_age */
    sample_totals younger;                  /* alive, but younger than min_age */
} session;

static void add_sample(sample_totals *t, uint64_t bytes, uint64_t weight) {
    t->samples++;
    t->bytes += bytes;
    t->weight += weight;
}

static void JNICALL on_sample(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jobject object, jclass klass, jlong size) {
    (void)thread;
    if (!gate_enter(&session.run.gate)) {
        return;
    }
    if (session.live && live_own_thread()) {
        gate_leave(&session.run.gate);
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
    jweak ref = session.live ? live_ref(jni, object, bytes) : NULL;
    if ((*jvmti)->RawMonitorEnter(jvmti, session.run.lock) == JVMTI_ERROR_NONE) {
        session.samples++;
        session.bytes += bytes;
        session.weight += weight;
        int32_t cls = signature == NULL ? -1 : name_table_intern(&session.classes, signature);
        stack_entry *e = NULL;
        if (cls < 0) {
            session.dropped_classes++;
        } else {
            if (!session.live) {
                add_sample(&session.per_class[cls], bytes, weight);
            }
            e = stack_table_find_or_add(&session.stacks, cls, -1, frames, depth);
        }
        if (e == NULL) {
            session.dropped_stacks++;
        } else if (!session.live) {
            e->count++;
            e->sum += bytes;
            e->weight += weight;
        } else if (ref != NULL && live_put(ref, e, bytes) == 0) {
            ref = NULL;
        }
        (*jvmti)->RawMonitorExit(jvmti, session.run.lock);
    }
    if (ref != NULL) {
        (*jni)->DeleteWeakGlobalRef(jni, ref);
    }
    if (signature != NULL) {
        (*jvmti)->Deallocate(jvmti, (unsigned char *)signature);
    }
    gate_leave(&session.run.gate);
}

static void add_callbacks(jvmtiEventCallbacks *callbacks) {
    callbacks->SampledObjectAlloc = on_sample;
}

static void wants(jvmtiCapabilities *c) {
    c->can_generate_sampled_object_alloc_events = 1;
}

/* The request's integer key (fallback when it is absent) into *value; -1, the request failed with
 * message, when it lies outside [low, high]. */
static int bounded(command_ctx *ctx, const char *key, int64_t fallback, int64_t low, int64_t high, const char *message,
                   int64_t *value) {
    *value = request_int(ctx->req, key, fallback);
    if (*value < low || *value > high) {
        command_fail(ctx, "bad_request", message);
        return -1;
    }
    return 0;
}

static int check(command_ctx *ctx) {
    int64_t interval, min_age, live_budget, live_largest;
    if (bounded(ctx, "interval", DEFAULT_INTERVAL, 1, (int64_t)1 << 30, "interval must be between 1 byte and 1 GiB", &interval) != 0
            || bounded(ctx, "minAge", 1, 0, MAX_MIN_AGE, "minAge must be between 0 and 1000000 collections", &min_age) != 0
            || bounded(ctx, "liveBudgetBytes", DEFAULT_LIVE_BUDGET, 1, MAX_LIVE_BYTES, "liveBudgetBytes must be between 1 byte and 1 TiB",
                       &live_budget) != 0
            || bounded(ctx, "liveLargestBytes", 0, 0, MAX_LIVE_BYTES, "liveLargestBytes must be between 0 (any) and 1 TiB",
                       &live_largest) != 0) {
        return -1;
    }
    session.interval = interval;
    session.live_budget = live_budget;
    session.live_largest = live_largest;
    session.live = request_bool(ctx->req, "live", 0);
    session.weak_refs_cleared_in_pauses = request_bool(ctx->req, "weakRefsClearedInPauses", 0);
    session.min_age = min_age;
    return 0;
}

static void free_tables(void) {
    stack_table_free(&session.stacks);
    name_table_free(&session.classes);
    free(session.stack_ages);
    session.stack_ages = NULL;
}

static int close_tables(void) {
    if (session.live && live_close(events_jni()) != 0) {
        return -1; /* its entries point into the stack table, and its pruner may use the lock */
    }
    free_tables();
    return 0;
}

static int open_tables(command_ctx *ctx) {
    memset(session.per_class, 0, sizeof session.per_class);
    session.samples = session.bytes = session.weight = 0;
    session.dropped_stacks = session.dropped_classes = 0;
    memset(&session.survivors, 0, sizeof session.survivors);
    memset(&session.younger, 0, sizeof session.younger);
    if (stack_table_init(&session.stacks, ALLOC_STACK_SLOTS) != 0
            || name_table_init(&session.classes, ALLOC_MAX_CLASSES, ALLOC_CLASS_ARENA) != 0
            || (session.live && (session.stack_ages = calloc(session.stacks.capacity, sizeof *session.stack_ages)) == NULL)) {
        free_tables();
        command_fail(ctx, "no_memory", "cannot allocate the sampling tables");
        return -1;
    }
    const char *failure = NULL;
    if (session.live && live_open(ctx->jni, session.run.lock, session.weak_refs_cleared_in_pauses, (uint64_t)session.live_budget,
                                  (uint64_t)session.live_largest, &failure) != 0) {
        free_tables();
        command_fail(ctx, "internal", failure);
        return -1;
    }
    jvmtiError err = (*the_agent.jvmti)->SetHeapSamplingInterval(the_agent.jvmti, (jint)session.interval);
    if (err != JVMTI_ERROR_NONE) {
        if (session.live) {
            live_quiesce(ctx->jni);
        }
        (void)close_tables();
        command_fail_jvmti(ctx, "SetHeapSamplingInterval", err);
        return -1;
    }
    return 0;
}

static void quiesce(JNIEnv *jni) {
    (void)(*the_agent.jvmti)->SetHeapSamplingInterval(the_agent.jvmti, DEFAULT_INTERVAL);
    if (session.live) {
        live_quiesce(jni);
    }
}

static void widen(age_range *range, uint64_t samples_before, uint32_t age) {
    if (samples_before == 0 || age < range->youngest) {
        range->youngest = age;
    }
    if (samples_before == 0 || age > range->oldest) {
        range->oldest = age;
    }
}

/* The survivors whose paths from GC roots the stop is asked for (heap --paths --from-live). */
typedef struct {
    heap_paths_sample *samples; /* NULL: not asked */
    uint32_t count;
} survivor_list;

/* A sampled object alive at stop: counted in its stack and class if old enough. */
static void count_survivor(void *arg, const stack_entry *found, uint64_t bytes, uint32_t age, jweak ref) {
    survivor_list *list = arg;
    uint64_t weight = sample_weight(bytes, (uint64_t)session.interval);
    if ((int64_t)age < session.min_age) {
        add_sample(&session.younger, bytes, weight);
        return;
    }
    size_t slot = (size_t)(found - session.stacks.slots);
    if (list->samples != NULL && list->count < LIVE_CAPACITY) {
        list->samples[list->count++] = (heap_paths_sample){ .ref = ref, .site = (uint32_t)slot, .weight = weight };
    }
    stack_entry *e = &session.stacks.slots[slot];
    widen(&session.stack_ages[slot], e->count, age);
    widen(&session.class_ages[e->key], session.per_class[e->key].samples, age);
    e->count++;
    e->sum += bytes;
    e->weight += weight;
    add_sample(&session.per_class[e->key], bytes, weight);
    add_sample(&session.survivors, bytes, weight);
}

static void write_totals(json_writer *w, const char *key, const sample_totals *t) {
    json_begin_object_field(w, key);
    json_field_int(w, "samples", (int64_t)t->samples);
    json_field_int(w, "sampledBytes", (int64_t)t->bytes);
    json_field_int(w, "estimatedBytes", (int64_t)t->weight);
    json_end_object(w);
}

static void write_ages(json_writer *w, const age_range *range) {
    json_field_int(w, "youngest", range->youngest);
    json_field_int(w, "oldest", range->oldest);
}

static void write_live(json_writer *w) {
    json_begin_object_field(w, "live");
    json_field_int(w, "minAge", session.min_age);
    live_write_counts(w);
    write_totals(w, "survivors", &session.survivors);
    write_totals(w, "younger", &session.younger);
    json_end_object(w);
}

static void write_started(json_writer *w) {
    json_begin_object(w);
    json_field_int(w, "interval", session.interval);
    json_field_bool(w, "live", session.live);
    json_end_object(w);
}

/* A path's site: the index of its stack in the report's stacks. */
static void write_stack_index(void *arg, json_writer *w, uint32_t slot) {
    const uint32_t *index_of_slot = arg;
    json_field_int(w, "stack", index_of_slot[slot]);
}

/* The survivors' paths from GC roots, when the stop asks for them: one walk of the heap. */
static void write_paths(command_ctx *ctx, const survivor_list *survivors, const uint32_t *index_of_slot) {
    json_writer *w = ctx->out;
    heap_paths_limits limits;
    json_key(w, "paths");
    if (survivors->samples == NULL || index_of_slot == NULL || heap_paths_limits_read(ctx->req, &limits) != 0) {
        json_begin_object(w);
        json_begin_object_field(w, "error");
        json_field_cstring(w, "code", survivors->samples == NULL || index_of_slot == NULL ? "out_of_memory" : "bad_request");
        json_field_cstring(w, "message", survivors->samples == NULL || index_of_slot == NULL ? "the agent could not allocate its list of survivors"
                           : "paths take maxPaths from 1 to 1000, maxDepth from 1 to 10000, maxObjects from 10000 to 200000000");
        json_end_object(w);
        json_end_object(w);
        return;
    }
    heap_paths_write_samples(w, ctx->jni, survivors->samples, survivors->count, &limits, write_stack_index, (void *)index_of_slot);
}

static void write_report(command_ctx *ctx, jlong elapsed, int64_t gcs) {
    json_writer *w = ctx->out;
    int paths = session.live && request_bool(ctx->req, "paths", 0);
    survivor_list survivors = { .samples = paths ? malloc(LIVE_CAPACITY * sizeof *survivors.samples) : NULL, .count = 0 };
    uint32_t *index_of_slot = paths ? calloc(session.stacks.capacity + 1, sizeof *index_of_slot) : NULL;
    if (session.live) {
        live_survivors(ctx->jni, count_survivor, &survivors);
    }
    method_table methods;
    int have_methods = method_table_init(&methods, session.stacks.used * STACK_MAX_FRAMES + 16) == 0;
    methods.with_origin = 1;
    command_result(ctx);
    json_begin_object(w);
    json_field_int(w, "interval", session.interval);
    json_field_int(w, "durationNanos", elapsed);
    json_field_int(w, "samples", (int64_t)session.samples);
    json_field_int(w, "sampledBytes", (int64_t)session.bytes);
    json_field_int(w, "estimatedBytes", (int64_t)session.weight);
    json_field_int(w, "droppedStacks", (int64_t)session.dropped_stacks);
    json_field_int(w, "droppedClasses", (int64_t)session.dropped_classes);
    if (gcs >= 0) {
        json_field_int(w, "gcs", gcs);
    }
    if (session.live) {
        write_live(w);
    }
    json_begin_array_field(w, "classes");
    for (size_t i = 0; i < session.classes.count; i++) {
        json_begin_object(w);
        json_field_mutf8(w, "name", name_table_get(&session.classes, (int32_t)i));
        json_field_int(w, "samples", (int64_t)session.per_class[i].samples);
        json_field_int(w, "sampledBytes", (int64_t)session.per_class[i].bytes);
        json_field_int(w, "estimatedBytes", (int64_t)session.per_class[i].weight);
        if (session.live && session.per_class[i].samples > 0) {
            write_ages(w, &session.class_ages[i]);
        }
        json_end_object(w);
    }
    json_end_array(w);
    json_begin_array_field(w, "stacks");
    uint32_t written = 0;
    for (size_t i = 0; have_methods && i < session.stacks.capacity; i++) {
        const stack_entry *e = &session.stacks.slots[i];
        if (e->hash == 0 || (session.live && e->count == 0)) {
            continue;
        }
        if (index_of_slot != NULL) {
            index_of_slot[i] = written;
        }
        written++;
        json_begin_object(w);
        json_field_int(w, "class", e->key);
        json_field_int(w, "samples", (int64_t)e->count);
        json_field_int(w, "sampledBytes", (int64_t)e->sum);
        json_field_int(w, "estimatedBytes", (int64_t)e->weight);
        if (session.live) {
            write_ages(w, &session.stack_ages[i]);
        }
        json_key(w, "frames");
        method_table_write_frames(&methods, w, e->frames, e->depth);
        json_end_object(w);
    }
    json_end_array(w);
    if (paths) {
        write_paths(ctx, &survivors, have_methods ? index_of_slot : NULL);
    }
    json_key(w, "methods");
    method_table_finish(have_methods ? &methods : NULL, ctx->jni, w);
    json_end_object(w);
    free(survivors.samples);
    free(index_of_slot);
}

static const session_event events[] = { { JVMTI_EVENT_SAMPLED_OBJECT_ALLOC, "SampledObjectAlloc" } };

static const session_engine engine = {
    .what = "allocation sampling",
    .lock_name = "jvmti-cli alloc",
    .capability = "can_generate_sampled_object_alloc_events",
    .wants = wants,
    .events = events,
    .event_count = sizeof events / sizeof events[0],
    .counts_gcs = 1,
    .callbacks = add_callbacks,
    .check = check,
    .open = open_tables,
    .quiesce = quiesce,
    .started = write_started,
    .report = write_report,
    .close = close_tables,
    .state = &session.run,
};

void cmd_alloc_start(command_ctx *ctx) {
    session_start(&engine, ctx);
}

void cmd_alloc_stop(command_ctx *ctx) {
    session_stop(&engine, ctx);
}
