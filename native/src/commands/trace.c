/* `trace.start` / `trace.bytes` / `trace.install` / `trace.stop`: method latency through probes in
 * the bytecode, a session engine (session.h) over the instrumentation engine (instrument.h).
 *
 * start finds the loaded classes the request's glob names (at most TRACE_MAX_CLASSES; a class of
 * the JDK, defined by the boot or the platform loader, only when the glob has no wildcard), defines
 * the client's probe class in the boot loader once per JVM and binds its native methods here, reads
 * each class's bytes and answers them. The client rewrites them (the agent parses no bytecode) and
 * sends them back in pieces (bytes); install puts them all in at once, or none. Every path out of
 * the session (stop, the client gone, detach, a refused install) puts the classes back.
 *
 * The client's bytecode calls TraceProbe.returned(id, start) or TraceProbe.threw(id, start) at each
 * exit, start being System.nanoTime() at entry (the same clock as CLOCK_MONOTONIC here). The id
 * carries the session's generation, so a call still running in an old version of a method after its
 * session counts in no later one. A call is counted in its method's latency histogram
 * (latency_histogram.h) without a lock; its stack is taken (GetStackTrace, on its own thread) only
 * when it is among the slowest so far or over the threshold.
 *
 * `exceptions.start` begins the same session over java.lang.Throwable, named here (the one JDK
 * class the tool names itself): the client's bytecode calls TraceProbe.created(id, this) at the end
 * of each of Throwable's constructors, counted by exception_counts.h; `exceptions.stop` is
 * trace.stop. Where the agent holds can_generate_exception_events (start-up mode, asked for), the
 * session also has the Exception and ExceptionCatch events on from install to its end: each
 * exception object thrown, once, and whether a Java frame caught it in the end, and which. One instrumentation session at a time, trace or
 * exceptions: a second is `busy`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent.h"
#include "aggregate.h"
#include "answer.h"
#include "code_list.h"
#include "exception_counts.h"
#include "instrument.h"
#include "jni_util.h"
#include "latency_histogram.h"
#include "method_table.h"
#include "probe_class.h"
#include "session.h"

#define TRACE_MAX_CLASSES 32
#define TRACE_MAX_METHODS 256
#define TRACE_MAX_TOP 100
#define TRACE_MAX_PROBE_BYTES 4096
#define TRACE_GROUP_SLOTS 1024
#define TRACE_PROBE_CLASS "dev/jvmticli/probe/TraceProbe"
#define TRACE_ID_BITS 16
#define EXCEPTIONS_CLASS "java.lang.Throwable"

typedef struct {
    uint64_t nanos;
    int32_t method;
    int32_t error;
    int32_t depth;
    jvmtiFrameInfo frames[STACK_MAX_FRAMES];
} slow_call;

typedef enum { PROBES_LATENCY, PROBES_EXCEPTIONS } probe_kind;

static struct {
    session_state run;
    probe_kind kind;
    int generation;                     /* of the session now (or last) running */
    instrumented_class classes[TRACE_MAX_CLASSES];
    int class_count;
    int installed;
    jlong probes_in_nanos;              /* when the install began (events_now_nanos), the window's start; 0: never */
    latency_histogram *methods;
    int method_count;
    int stacked_count;                  /* the ids below it keep their slow calls' stacks; the rest (callees) are timed only */
    uint64_t threshold_nanos;           /* 0: none */
    int top;
    slow_call *slowest;
    int slow_count;
    uint64_t slow_floor;                /* once slowest is full: its fastest call's nanos */
    stack_table over_threshold;
    uint64_t dropped_stacks;
    uint64_t skipped_jdk;
    jlong metaspace_before, code_cache_before;
    jlong metaspace_after, code_cache_after;
    int64_t deoptimized;                /* nmethods made not entrant by the session's retransforms; -1: unknown */
    const char *restore_failure;        /* NULL, or what failed when the classes were put back */
    jvmtiError restore_error;
    exception_counts exceptions;        /* PROBES_EXCEPTIONS */
} trace;

static probe_kind starting = PROBES_LATENCY; /* the kind the start under way asks for (agent thread) */

static jclass probe_class; /* global ref; the class stays in the boot loader for the JVM's life */

static void release_probe(JNIEnv *jni) {
    if (probe_class != NULL) {
        (*jni)->DeleteGlobalRef(jni, probe_class);
        probe_class = NULL;
    }
}
AGENT_RELEASE(release_probe)

static void take_stack(uint64_t nanos, int32_t method, int error) {
    jvmtiEnv *jvmti = the_agent.jvmti;
    slow_call call = { nanos, method, error, 0, { { 0, 0 } } };
    if ((*jvmti)->GetStackTrace(jvmti, NULL, 1, STACK_MAX_FRAMES, call.frames, &call.depth) != JVMTI_ERROR_NONE) {
        call.depth = 0;
    }
    if ((*jvmti)->RawMonitorEnter(jvmti, trace.run.lock) != JVMTI_ERROR_NONE) {
        return;
    }
    if (trace.threshold_nanos > 0 && nanos >= trace.threshold_nanos) {
        stack_entry *e = stack_table_find_or_add(&trace.over_threshold, method, error, call.frames, call.depth);
        if (e == NULL) {
            trace.dropped_stacks++;
        } else {
            e->count++;
            e->sum += nanos;
            e->weight = nanos > e->weight ? nanos : e->weight;
        }
    }
    if (trace.slow_count < trace.top) {
        trace.slowest[trace.slow_count++] = call;
    } else if (nanos > trace.slow_floor) {
        int fastest = 0;
        for (int i = 1; i < trace.slow_count; i++) {
            fastest = trace.slowest[i].nanos < trace.slowest[fastest].nanos ? i : fastest;
        }
        trace.slowest[fastest] = call;
    }
    if (trace.slow_count == trace.top) {
        uint64_t floor = UINT64_MAX;
        for (int i = 0; i < trace.slow_count; i++) {
            floor = trace.slowest[i].nanos < floor ? trace.slowest[i].nanos : floor;
        }
        __atomic_store_n(&trace.slow_floor, floor, __ATOMIC_RELAXED);
    }
    (*jvmti)->RawMonitorExit(jvmti, trace.run.lock);
}

static void record(jint id, jlong start, int error) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    jlong end = (jlong)now.tv_sec * 1000000000LL + now.tv_nsec;
    if (!gate_enter(&trace.run.gate)) {
        return;
    }
    int32_t method = id & ((1 << TRACE_ID_BITS) - 1);
    if ((id >> TRACE_ID_BITS) == trace.generation && method < trace.method_count && trace.methods != NULL) {
        uint64_t nanos = end > start ? (uint64_t)(end - start) : 0;
        latency_record(&trace.methods[method], nanos, error);
        int slow = trace.slow_count < trace.top || nanos > __atomic_load_n(&trace.slow_floor, __ATOMIC_RELAXED);
        if (method < trace.stacked_count && (slow || (trace.threshold_nanos > 0 && nanos >= trace.threshold_nanos))) {
            take_stack(nanos, method, error);
        }
    }
    gate_leave(&trace.run.gate);
}

static void JNICALL probe_returned(JNIEnv *jni, jclass probe, jint id, jlong start) {
    (void)jni;
    (void)probe;
    record(id, start, 0);
}

static void JNICALL probe_threw(JNIEnv *jni, jclass probe, jint id, jlong start) {
    (void)jni;
    (void)probe;
    record(id, start, 1);
}

static void JNICALL probe_created(JNIEnv *jni, jclass probe, jint id, jobject throwable) {
    (void)probe;
    if (!gate_enter(&trace.run.gate)) {
        return;
    }
    if ((id >> TRACE_ID_BITS) == trace.generation && trace.kind == PROBES_EXCEPTIONS) {
        exception_counts_record(&trace.exceptions, jni, throwable);
    }
    gate_leave(&trace.run.gate);
}

/* The JVMTI Exception and ExceptionCatch events, on while an exceptions session runs in a JVM whose
 * agent holds can_generate_exception_events (start-up mode with the exception-events option). */
static void JNICALL on_exception(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jmethodID method, jlocation location,
                                 jobject exception, jmethodID catch_method, jlocation catch_location) {
    (void)jvmti;
    (void)thread;
    (void)catch_location;
    if (!gate_enter(&trace.run.gate)) {
        return;
    }
    if (trace.kind == PROBES_EXCEPTIONS && trace.exceptions.throw_events) {
        exception_counts_thrown(&trace.exceptions, jni, exception, method, location, catch_method);
    }
    gate_leave(&trace.run.gate);
}

static void JNICALL on_exception_catch(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jmethodID method, jlocation location,
                                       jobject exception) {
    (void)jvmti;
    (void)thread;
    if (!gate_enter(&trace.run.gate)) {
        return;
    }
    if (trace.kind == PROBES_EXCEPTIONS && trace.exceptions.throw_events) {
        exception_counts_caught(&trace.exceptions, jni, exception, method, location);
    }
    gate_leave(&trace.run.gate);
}

static void exception_event_callbacks(jvmtiEventCallbacks *c) {
    c->Exception = on_exception;
    c->ExceptionCatch = on_exception_catch;
}

/* Both events on, or neither; 0, or the error with *what naming the call that failed. */
static jvmtiError throw_events_on(const char **what) {
    *what = "SetEventCallbacks";
    jvmtiError err = events_install(exception_event_callbacks);
    if (err == JVMTI_ERROR_NONE) {
        *what = "SetEventNotificationMode(Exception)";
        err = events_set(JVMTI_EVENT_EXCEPTION, 1);
    }
    if (err == JVMTI_ERROR_NONE) {
        *what = "SetEventNotificationMode(ExceptionCatch)";
        err = events_set(JVMTI_EVENT_EXCEPTION_CATCH, 1);
        if (err != JVMTI_ERROR_NONE) {
            (void)events_set(JVMTI_EVENT_EXCEPTION, 0);
        }
    }
    return err;
}

static void throw_events_off(void) {
    if (trace.exceptions.throw_events) {
        (void)events_set(JVMTI_EVENT_EXCEPTION, 0);
        (void)events_set(JVMTI_EVENT_EXCEPTION_CATCH, 0);
    }
}

/* The probe class, defined in the boot loader by the first session of this JVM (its bytes are the
 * client's), its natives bound to this library. 0, or -1 with ctx answered. */
static int bind_probe(command_ctx *ctx) {
    JNINativeMethod natives[] = {
        { "returned", "(IJ)V", (void *)probe_returned },
        { "threw", "(IJ)V", (void *)probe_threw },
        { "created", "(ILjava/lang/Throwable;)V", (void *)probe_created },
    };
    jclass bound = probe_class_bind(ctx, TRACE_PROBE_CLASS, "probe", TRACE_MAX_PROBE_BYTES, natives, 3);
    if (bound == NULL) {
        return -1;
    }
    release_probe(ctx->jni);
    probe_class = bound;
    return 0;
}

/* Glob over a class's binary name (p.C or p.C$I): '*' matches any run of characters. */
static int glob_matches(const char *glob, const char *name) {
    if (*glob == '\0') {
        return *name == '\0';
    }
    if (*glob == '*') {
        for (const char *rest = name;; rest++) {
            if (glob_matches(glob + 1, rest)) {
                return 1;
            }
            if (*rest == '\0') {
                return 0;
            }
        }
    }
    return *name != '\0' && *glob == *name && glob_matches(glob + 1, name + 1);
}

/* "Lp/C;" as p.C into out; 0, or -1 when it is not a plain class's signature. */
static int binary_name(const char *signature, char *out, size_t cap) {
    size_t len = strlen(signature);
    if (len < 3 || signature[0] != 'L' || signature[len - 1] != ';' || len - 2 >= cap) {
        return -1;
    }
    for (size_t i = 1; i + 1 < len; i++) {
        out[i - 1] = signature[i] == '/' ? '.' : signature[i];
    }
    out[len - 2] = '\0';
    return 0;
}

/* The loaded classes the glob names, into trace.classes. 0, or -1 with ctx answered. */
static int find_classes(command_ctx *ctx, const char *glob) {
    jvmtiEnv *jvmti = the_agent.jvmti;
    JNIEnv *jni = ctx->jni;
    int explicit_name = strchr(glob, '*') == NULL;
    jint count = 0;
    jclass *loaded = NULL;
    jvmtiError err = (*jvmti)->GetLoadedClasses(jvmti, &count, &loaded);
    if (err != JVMTI_ERROR_NONE) {
        command_fail_jvmti(ctx, "GetLoadedClasses", err);
        return -1;
    }
    jni_reserve_locals(jni, count);
    jobject platform = jni_platform_class_loader(jni);
    int matched = 0;
    int failed = 0;
    char name[1024];
    for (jint i = 0; i < count; i++) {
        char *signature = NULL;
        jboolean modifiable = JNI_FALSE;
        int wanted = !failed
                && (*jvmti)->GetClassSignature(jvmti, loaded[i], &signature, NULL) == JVMTI_ERROR_NONE
                && binary_name(signature, name, sizeof name) == 0 && glob_matches(glob, name)
                && (*jvmti)->IsModifiableClass(jvmti, loaded[i], &modifiable) == JVMTI_ERROR_NONE && modifiable;
        if (wanted && !explicit_name && jni_defined_by_jdk(jni, jvmti, loaded[i], platform) != 0) {
            trace.skipped_jdk++;
            wanted = 0;
        }
        if (wanted && ++matched <= TRACE_MAX_CLASSES) {
            instrumented_class *c = &trace.classes[trace.class_count];
            c->signature = strdup(signature);
            c->klass = (*jni)->NewGlobalRef(jni, loaded[i]);
            trace.class_count++;
            if (c->signature == NULL || c->klass == NULL) {
                command_fail(ctx, "no_memory", "cannot keep the classes");
                failed = 1;
            } else if (explicit_name && jni_defined_by_jdk(jni, jvmti, loaded[i], platform) != 0 && probe_class_readable_from(ctx, probe_class, loaded[i]) != 0) {
                failed = 1;
            }
        }
        agent_deallocate(signature);
        (*jni)->DeleteLocalRef(jni, loaded[i]);
    }
    agent_deallocate(loaded);
    if (platform != NULL) {
        (*jni)->DeleteLocalRef(jni, platform);
    }
    if (failed) {
        return -1;
    }
    char message[256];
    if (matched > TRACE_MAX_CLASSES) {
        snprintf(message, sizeof message, "%d loaded classes match; a session instruments at most %d: name fewer", matched,
                 TRACE_MAX_CLASSES);
        command_fail(ctx, "too_many_classes", message);
        return -1;
    }
    if (matched == 0) {
        snprintf(message, sizeof message, "no loaded class that can be instrumented matches%s",
                 trace.skipped_jdk > 0 ? " (the JDK's classes are traced only when named without a wildcard)" : "");
        command_fail(ctx, "no_class", message);
        return -1;
    }
    return 0;
}

/* The bytes the JVM's MemoryPoolMXBeans say are used in pools whose name starts with prefix
 * ("Metaspace", "CodeHeap" or "CodeCache"), -1 when they cannot be read. */
static jlong pool_used(JNIEnv *jni, const char *const *prefixes, int prefix_count) {
    jlong total = -1;
    if ((*jni)->PushLocalFrame(jni, 64) != 0) {
        jni_cleared_exception(jni);
        return -1;
    }
    jclass factory = (*jni)->FindClass(jni, "java/lang/management/ManagementFactory");
    jclass pool_class = jni_failed(jni, factory) ? NULL : (*jni)->FindClass(jni, "java/lang/management/MemoryPoolMXBean");
    jclass list_class = jni_failed(jni, pool_class) ? NULL : (*jni)->FindClass(jni, "java/util/List");
    jclass usage_class = jni_failed(jni, list_class) ? NULL : (*jni)->FindClass(jni, "java/lang/management/MemoryUsage");
    if (jni_failed(jni, usage_class)) {
        (*jni)->PopLocalFrame(jni, NULL);
        return -1;
    }
    jmethodID get_pools = (*jni)->GetStaticMethodID(jni, factory, "getMemoryPoolMXBeans", "()Ljava/util/List;");
    jmethodID size = jni_failed(jni, get_pools) ? NULL : (*jni)->GetMethodID(jni, list_class, "size", "()I");
    jmethodID get = jni_failed(jni, size) ? NULL : (*jni)->GetMethodID(jni, list_class, "get", "(I)Ljava/lang/Object;");
    jmethodID get_name = jni_failed(jni, get) ? NULL : (*jni)->GetMethodID(jni, pool_class, "getName", "()Ljava/lang/String;");
    jmethodID get_usage = jni_failed(jni, get_name) ? NULL
            : (*jni)->GetMethodID(jni, pool_class, "getUsage", "()Ljava/lang/management/MemoryUsage;");
    jmethodID get_used = jni_failed(jni, get_usage) ? NULL : (*jni)->GetMethodID(jni, usage_class, "getUsed", "()J");
    jobject pools = jni_failed(jni, get_used) ? NULL : (*jni)->CallStaticObjectMethod(jni, factory, get_pools);
    jint n = 0;
    if (!jni_failed(jni, pools) && jni_call_int(jni, pools, size, &n) == 0) {
        total = 0;
        for (jint i = 0; i < n && total >= 0; i++) {
            jobject pool = (*jni)->CallObjectMethod(jni, pools, get, i);
            char *name = jni_failed(jni, pool) ? NULL : jni_call_string(jni, pool, get_name);
            int counted = 0;
            for (int p = 0; name != NULL && p < prefix_count; p++) {
                counted |= strncmp(name, prefixes[p], strlen(prefixes[p])) == 0;
            }
            jobject usage = counted ? (*jni)->CallObjectMethod(jni, pool, get_usage) : NULL;
            jlong used = 0;
            if (counted && (jni_failed(jni, usage) || jni_call_long(jni, usage, get_used, &used) != 0)) {
                total = -1;
            } else {
                total += used;
            }
            free(name);
            if (usage != NULL) {
                (*jni)->DeleteLocalRef(jni, usage);
            }
            if (pool != NULL) {
                (*jni)->DeleteLocalRef(jni, pool);
            }
        }
    }
    (*jni)->PopLocalFrame(jni, NULL);
    return total;
}

static const char *const METASPACE[] = { "Metaspace" };
static const char *const CODE_CACHE[] = { "CodeHeap", "CodeCache" };

static void read_costs(JNIEnv *jni, jlong *metaspace, jlong *code_cache) {
    *metaspace = jni == NULL ? -1 : pool_used(jni, METASPACE, 1);
    *code_cache = jni == NULL ? -1 : pool_used(jni, CODE_CACHE, 2);
}

/* The JVM's compiled code before a retransform (entries NULL when it cannot be read). */
static void code_before(code_list *before) {
    memset(before, 0, sizeof *before);
    if (trace.deoptimized < 0 || code_list_read(before) != 0) {
        code_list_free(before);
    }
}

/* Adds the code in use before the retransform that is not now: HotSpot deoptimizes what depends
 * on a class it redefines, at once, in the same VM operation. */
static void count_deoptimized(code_list *before) {
    code_list after;
    int64_t left = -1;
    if (before->entries != NULL && code_list_read(&after) == 0) {
        left = code_list_left_use(before, &after);
        code_list_free(&after);
    }
    trace.deoptimized = left < 0 || trace.deoptimized < 0 ? -1 : trace.deoptimized + left;
    code_list_free(before);
}

static int check(command_ctx *ctx) {
    if (starting == PROBES_EXCEPTIONS) {
        return 0;
    }
    const char *glob = request_string(ctx->req, "classes");
    if (glob == NULL || *glob == '\0' || strlen(glob) > 512) {
        command_fail(ctx, "bad_request", "classes must be a glob over class names, at most 512 characters");
        return -1;
    }
    return 0;
}

static void free_tables(JNIEnv *jni) {
    instrument_free(jni, trace.classes, trace.class_count);
    trace.class_count = 0;
    free(trace.methods);
    trace.methods = NULL;
    trace.method_count = 0;
    free(trace.slowest);
    trace.slowest = NULL;
    trace.slow_count = 0;
    trace.top = 0;
    stack_table_free(&trace.over_threshold);
    exception_counts_free(&trace.exceptions, jni);
}

static int open_session(command_ctx *ctx) {
    trace.generation = (trace.generation + 1) & 0x7fff;
    trace.installed = 0;
    trace.probes_in_nanos = 0;
    trace.method_count = 0;
    trace.threshold_nanos = 0;
    trace.top = 0;
    trace.slow_count = 0;
    trace.slow_floor = 0;
    trace.dropped_stacks = 0;
    trace.skipped_jdk = 0;
    trace.restore_failure = NULL;
    trace.restore_error = JVMTI_ERROR_NONE;
    trace.metaspace_after = trace.code_cache_after = -1;
    trace.deoptimized = 0;
    trace.kind = starting;
    const char *classes = trace.kind == PROBES_EXCEPTIONS ? EXCEPTIONS_CLASS : request_string(ctx->req, "classes");
    if (bind_probe(ctx) != 0 || find_classes(ctx, classes) != 0) {
        free_tables(ctx->jni);
        return -1;
    }
    if (trace.kind == PROBES_EXCEPTIONS && exception_counts_init(&trace.exceptions, ctx->jni, trace.run.lock) != 0) {
        free_tables(ctx->jni);
        command_fail(ctx, "no_memory", "cannot allocate the exception tables");
        return -1;
    }
    return 0;
}

/* The classes' bytes, read once the hook is installed. */
static int armed(command_ctx *ctx) {
    if (instrument_refuse_taken(ctx, trace.classes, trace.class_count)) {
        return -1;
    }
    read_costs(ctx->jni, &trace.metaspace_before, &trace.code_cache_before);
    const char *what = NULL;
    code_list before;
    code_before(&before);
    jvmtiError err = instrument_read(trace.classes, trace.class_count, trace.kind == PROBES_EXCEPTIONS ? "exceptions" : "trace", &what);
    count_deoptimized(&before);
    if (err != JVMTI_ERROR_NONE) {
        command_fail_jvmti(ctx, what, err);
        return -1;
    }
    return 0;
}

static void quiesce(JNIEnv *jni) {
    throw_events_off();
    if (trace.installed && jni != NULL) {
        code_list before;
        code_before(&before);
        trace.restore_error = instrument_restore(trace.classes, trace.class_count, &trace.restore_failure);
        count_deoptimized(&before);
        trace.installed = trace.restore_error != JVMTI_ERROR_NONE;
    }
    read_costs(jni, &trace.metaspace_after, &trace.code_cache_after);
}

static int close_session(void) {
    if (trace.installed) {
        return -1; /* still in the JVM's classes: the probes may run; the session stays taken */
    }
    free_tables(events_jni());
    return 0;
}

static void write_started(json_writer *w) {
    json_begin_object(w);
    json_field_int(w, "generation", trace.generation);
    json_field_int(w, "idBits", TRACE_ID_BITS);
    json_field_int(w, "maxMethods", TRACE_MAX_METHODS);
    json_field_int(w, "skippedJdkClasses", (int64_t)trace.skipped_jdk);
    instrument_write_originals(w, trace.classes, trace.class_count);
    json_end_object(w);
}

static void write_frames_of(method_table *methods, json_writer *w, const jvmtiFrameInfo *frames, int depth) {
    json_key(w, "frames");
    if (methods != NULL) {
        method_table_write_frames(methods, w, frames, depth);
    } else {
        json_begin_array(w);
        json_end_array(w);
    }
}

static void write_methods(json_writer *w) {
    json_begin_array_field(w, "methods");
    for (int m = 0; m < trace.method_count; m++) {
        const latency_histogram *h = &trace.methods[m];
        json_begin_object(w);
        json_field_int(w, "calls", (int64_t)h->calls);
        json_field_int(w, "errors", (int64_t)h->errors);
        json_field_int(w, "totalNanos", (int64_t)h->total_nanos);
        latency_write_json(w, h);
        json_end_object(w);
    }
    json_end_array(w);
}

/* The time the probes could count: from the install to the stop. The session's own elapsed time
 * also holds the client's read and rewrite of the classes, seconds on a loaded machine, when
 * nothing was counted: a rate over it would be too low. */
static jlong counting_nanos(jlong elapsed) {
    if (trace.probes_in_nanos == 0) {
        return 0;
    }
    jlong before = trace.probes_in_nanos - trace.run.started_nanos;
    return elapsed > before ? elapsed - before : 0;
}

static void write_session(json_writer *w, jlong elapsed) {
    json_field_int(w, "durationNanos", counting_nanos(elapsed));
    if (trace.restore_failure != NULL && trace.restore_error != JVMTI_ERROR_NONE) {
        json_field_cstring(w, "restoreFailure", trace.restore_failure);
    }
    json_begin_object_field(w, "cost");
    json_field_int(w, "metaspaceBefore", trace.metaspace_before);
    json_field_int(w, "metaspaceAfter", trace.metaspace_after);
    json_field_int(w, "codeCacheBefore", trace.code_cache_before);
    json_field_int(w, "codeCacheAfter", trace.code_cache_after);
    json_field_int(w, "deoptimized", trace.deoptimized);
    json_end_object(w);
    instrument_write_outcome(w, trace.classes, trace.class_count);
}

/* The exceptions counted: their frames' methods say whether the JDK defined their class. */
static void write_exceptions_report(command_ctx *ctx, jlong elapsed) {
    json_writer *w = ctx->out;
    method_table methods;
    int have_methods = method_table_init(&methods, trace.exceptions.stacks.used * STACK_MAX_FRAMES + trace.exceptions.catches.used + 16) == 0;
    methods.with_origin = 1;
    command_result(ctx);
    json_begin_object(w);
    write_session(w, elapsed);
    exception_counts_write(&trace.exceptions, w, have_methods ? &methods : NULL);
    json_key(w, "frameMethods");
    method_table_finish(have_methods ? &methods : NULL, ctx->jni, w);
    json_end_object(w);
}

static void write_report(command_ctx *ctx, jlong elapsed, int64_t gcs) {
    (void)gcs;
    if (trace.kind == PROBES_EXCEPTIONS) {
        write_exceptions_report(ctx, elapsed);
        return;
    }
    json_writer *w = ctx->out;
    method_table methods;
    int have_methods = method_table_init(&methods, (size_t)(trace.slow_count + trace.over_threshold.used) * STACK_MAX_FRAMES + 16) == 0;
    command_result(ctx);
    json_begin_object(w);
    write_session(w, elapsed);
    json_field_int(w, "thresholdNanos", (int64_t)trace.threshold_nanos);
    json_field_int(w, "droppedStacks", (int64_t)trace.dropped_stacks);
    write_methods(w);
    json_begin_array_field(w, "slowest");
    for (int i = 0; i < trace.slow_count; i++) {
        json_begin_object(w);
        json_field_int(w, "method", trace.slowest[i].method);
        json_field_int(w, "nanos", (int64_t)trace.slowest[i].nanos);
        json_field_bool(w, "error", trace.slowest[i].error);
        write_frames_of(have_methods ? &methods : NULL, w, trace.slowest[i].frames, trace.slowest[i].depth);
        json_end_object(w);
    }
    json_end_array(w);
    json_begin_array_field(w, "overThreshold");
    for (size_t i = 0; trace.over_threshold.slots != NULL && i < trace.over_threshold.capacity; i++) {
        const stack_entry *e = &trace.over_threshold.slots[i];
        if (e->hash == 0) {
            continue;
        }
        json_begin_object(w);
        json_field_int(w, "method", e->key);
        json_field_bool(w, "error", e->aux);
        json_field_int(w, "calls", (int64_t)e->count);
        json_field_int(w, "totalNanos", (int64_t)e->sum);
        json_field_int(w, "maxNanos", (int64_t)e->weight);
        write_frames_of(have_methods ? &methods : NULL, w, e->frames, e->depth);
        json_end_object(w);
    }
    json_end_array(w);
    json_key(w, "frameMethods");
    method_table_finish(have_methods ? &methods : NULL, ctx->jni, w);
    json_end_object(w);
}

static const session_engine engine = {
    .what = "instrumentation (trace or exceptions)",
    .lock_name = "jvmti-cli trace",
    INSTRUMENT_ENGINE,
    .check = check,
    .open = open_session,
    .armed = armed,
    .quiesce = quiesce,
    .started = write_started,
    .report = write_report,
    .close = close_session,
    .state = &trace.run,
};

void cmd_trace_start(command_ctx *ctx) {
    session_start(&engine, ctx);
}

void cmd_exceptions_start(command_ctx *ctx) {
    starting = PROBES_EXCEPTIONS;
    session_start(&engine, ctx);
    starting = PROBES_LATENCY;
}

void cmd_trace_stop(command_ctx *ctx) {
    session_stop(&engine, ctx);
}

static int before_install(command_ctx *ctx) {
    return instrument_before_install(ctx, &trace.run, trace.installed, "this client has no tracing session");
}

void cmd_trace_bytes(command_ctx *ctx) {
    if (before_install(ctx)) {
        instrument_receive_bytes(ctx, trace.classes, trace.class_count);
    }
}

/* Installs every class's new bytes at once: methods (the probes' ids run 0..methods-1), stackedMethods
 * (the ids below it keep their slowest calls' stacks, the others are only timed; default: all),
 * threshold (nanoseconds, 0: none), top (the slowest calls kept). A refusal ends the session. */
void cmd_trace_install(command_ctx *ctx) {
    if (!before_install(ctx)) {
        return;
    }
    int64_t method_count = request_int(ctx->req, "methods", -1);
    int64_t threshold = request_int(ctx->req, "thresholdNanos", 0);
    int64_t top = request_int(ctx->req, "top", 10);
    int64_t stacked_count = request_int(ctx->req, "stackedMethods", method_count);
    if (method_count < 1 || method_count > TRACE_MAX_METHODS || stacked_count < 1 || stacked_count > method_count || threshold < 0
            || top < 1 || top > TRACE_MAX_TOP) {
        command_fail(ctx, "bad_request", "methods must be 1 to 256, stackedMethods 1 to methods, thresholdNanos 0 or more, top 1 to 100");
        return;
    }
    trace.methods = malloc((size_t)method_count * sizeof *trace.methods);
    trace.slowest = calloc((size_t)top, sizeof *trace.slowest);
    if (trace.methods == NULL || trace.slowest == NULL || stack_table_init(&trace.over_threshold, TRACE_GROUP_SLOTS) != 0) {
        free(trace.methods);
        free(trace.slowest);
        trace.methods = NULL;
        trace.slowest = NULL;
        command_fail(ctx, "no_memory", "cannot allocate the latency tables");
        return;
    }
    for (int64_t m = 0; m < method_count; m++) {
        latency_reset(&trace.methods[m]);
    }
    trace.threshold_nanos = (uint64_t)threshold;
    trace.top = (int)top;
    trace.method_count = (int)method_count;
    trace.stacked_count = (int)stacked_count;
    const char *what = NULL;
    code_list before;
    code_before(&before);
    trace.probes_in_nanos = events_now_nanos();
    jvmtiError err = instrument_install(trace.classes, trace.class_count, &what);
    count_deoptimized(&before);
    if (err != JVMTI_ERROR_NONE) {
        instrument_refused(ctx, &engine, err, what);
        return;
    }
    trace.installed = 1;
    if (trace.kind == PROBES_EXCEPTIONS && the_agent.held.can_generate_exception_events) {
        err = exception_counts_track_throws(&trace.exceptions, &what);
        if (err == JVMTI_ERROR_NONE) {
            err = throw_events_on(&what);
        }
        if (err != JVMTI_ERROR_NONE) {
            session_end(&engine, ctx->jni);
            command_fail_jvmti(ctx, what, err);
            return;
        }
    }
    command_result(ctx);
    json_begin_object(ctx->out);
    json_field_int(ctx->out, "classes", trace.class_count);
    json_field_int(ctx->out, "methods", trace.method_count);
    json_end_object(ctx->out);
}
