/* The `vthreads` command: every virtual thread with its facts, carrier and, on request, its stack
 * and lock facts. See vthreads.h for how they are found.
 *
 * Answer: {"time", "lockSource", "lockFactsComplete", "threads": [...], "stacks": [...],
 * "summary": {...}}. Threads are streamed as they are found; a stack is written once in "stacks"
 * and referred to by its index ("stack": N) from every thread that has it, so that 100,000 threads
 * parked at the same place cost one stack. The agent's memory for that is bounded (STACKS_MAX
 * distinct stacks, FRAMES_MAX frames); past the bound a thread carries its own "frames".
 *
 * Lock facts of a virtual thread come from a ThreadSnapshot (thread_snapshot.h, JDK 25+): monitors
 * owned at each frame, the monitor it is blocked entering or waits on. The owner of such a monitor
 * is not part of that snapshot; the CLI matches it against the monitors the threads own. Parked threads
 * are read through LockSupport.getBlocker, as for platform threads. Before JDK 25 there is no
 * ThreadSnapshot: monitor facts of virtual threads are then unknown ("lockFactsComplete": false). */
#include "vthreads.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "answer.h"
#include "capabilities.h"
#include "frames.h"
#include "jni_util.h"
#include "locks.h"
#include "thread_facts.h"
#include "thread_set.h"
#include "thread_snapshot.h"
#include "thread_state.h"

#define CONTAINER_DEPTH_MAX 64
#define STACK_SLOTS 8192          /* power of two */
#define STACKS_MAX (STACK_SLOTS / 2)
#define FRAMES_MAX (1 << 20)

static struct {
    int ready;
    jclass containers;
    jmethodID root;
    jmethodID container_threads;
    jmethodID container_children;
    jmethodID stream_iterator;
    jmethodID has_next;
    jmethodID next;
    jclass virtual_thread;
    jfieldID carrier;
    jfieldID vt_state;
    jint pinned;
    jint timed_pinned;
} vt;

static jint static_int(JNIEnv *jni, jclass klass, const char *field) {
    jfieldID id = (*jni)->GetStaticFieldID(jni, klass, field, "I");
    if (jni_failed(jni, id)) {
        return -1;
    }
    jint value = (*jni)->GetStaticIntField(jni, klass, id);
    return jni_cleared_exception(jni) ? -1 : value;
}

/* Looks up what the walk needs. Returns NULL, or why virtual threads cannot be listed. */
static const char *prepare(JNIEnv *jni) {
    if (vt.ready) {
        return NULL;
    }
    vt.containers = jni_global_class(jni, "jdk/internal/vm/ThreadContainers");
    jclass container = (*jni)->FindClass(jni, "jdk/internal/vm/ThreadContainer");
    if (jni_failed(jni, container)) container = NULL;
    vt.virtual_thread = jni_global_class(jni, "java/lang/VirtualThread");
    if (vt.containers == NULL || container == NULL || vt.virtual_thread == NULL) {
        if (container != NULL) (*jni)->DeleteLocalRef(jni, container);
        vthreads_release(jni);
        return "no virtual threads in this JVM (they need JDK 21 or later)";
    }
    jclass stream = (*jni)->FindClass(jni, "java/util/stream/BaseStream");
    jclass iterator = (*jni)->FindClass(jni, "java/util/Iterator");
    jclass thread = (*jni)->FindClass(jni, "java/lang/Thread");
    int ok = !jni_failed(jni, stream) && !jni_failed(jni, iterator) && !jni_failed(jni, thread);
    if (ok) {
        vt.root = (*jni)->GetStaticMethodID(jni, vt.containers, "root", "()Ljdk/internal/vm/ThreadContainer;");
        vt.container_threads = (*jni)->GetMethodID(jni, container, "threads", "()Ljava/util/stream/Stream;");
        vt.container_children = (*jni)->GetMethodID(jni, container, "children", "()Ljava/util/stream/Stream;");
        vt.stream_iterator = (*jni)->GetMethodID(jni, stream, "iterator", "()Ljava/util/Iterator;");
        vt.has_next = (*jni)->GetMethodID(jni, iterator, "hasNext", "()Z");
        vt.next = (*jni)->GetMethodID(jni, iterator, "next", "()Ljava/lang/Object;");
        vt.carrier = (*jni)->GetFieldID(jni, vt.virtual_thread, "carrierThread", "Ljava/lang/Thread;");
        vt.vt_state = (*jni)->GetFieldID(jni, vt.virtual_thread, "state", "I");
        ok = !jni_cleared_exception(jni) && vt.root != NULL && vt.container_threads != NULL && vt.container_children != NULL
            && vt.stream_iterator != NULL && vt.has_next != NULL && vt.next != NULL
            && vt.carrier != NULL && vt.vt_state != NULL;
    }
    if (ok) {
        vt.pinned = static_int(jni, vt.virtual_thread, "PINNED");
        vt.timed_pinned = static_int(jni, vt.virtual_thread, "TIMED_PINNED");
    }
    (*jni)->DeleteLocalRef(jni, container);
    if (stream != NULL) (*jni)->DeleteLocalRef(jni, stream);
    if (iterator != NULL) (*jni)->DeleteLocalRef(jni, iterator);
    if (thread != NULL) (*jni)->DeleteLocalRef(jni, thread);
    if (!ok) {
        vthreads_release(jni);
        return "this JDK's thread containers are not laid out as expected: virtual threads cannot be listed";
    }
    vt.ready = 1;
    return NULL;
}

void vthreads_release(JNIEnv *jni) {
    jobject refs[] = { vt.containers, vt.virtual_thread };
    for (size_t i = 0; i < sizeof refs / sizeof refs[0]; i++) {
        if (refs[i] != NULL) {
            (*jni)->DeleteGlobalRef(jni, refs[i]);
        }
    }
    memset(&vt, 0, sizeof vt);
}

/* ---- the distinct stacks of one answer ---- */

typedef struct {
    uint64_t hash;
    jint count;
    int index;              /* in the answer's "stacks" */
    jvmtiFrameInfo *frames; /* NULL: free slot */
} stack_slot;

typedef struct {
    stack_slot *slots;
    int *order;             /* index -> slot */
    int used;
    size_t frames_total;
} stack_table;

static uint64_t stack_hash(const jvmtiFrameInfo *frames, jint count) {
    uint64_t h = 1469598103934665603ull ^ (uint64_t)count;
    for (jint i = 0; i < count; i++) {
        h = (h ^ (uint64_t)(uintptr_t)frames[i].method) * 1099511628211ull;
        h = (h ^ (uint64_t)frames[i].location) * 1099511628211ull;
    }
    return h;
}

/* The index of this stack in the table, added if new; -1 when the table is full. */
static int stack_index(stack_table *t, const jvmtiFrameInfo *frames, jint count) {
    uint64_t h = stack_hash(frames, count);
    size_t slot = (size_t)h & (STACK_SLOTS - 1);
    while (t->slots[slot].frames != NULL) {
        stack_slot *s = &t->slots[slot];
        if (s->hash == h && s->count == count && memcmp(s->frames, frames, (size_t)count * sizeof *frames) == 0) {
            return s->index;
        }
        slot = (slot + 1) & (STACK_SLOTS - 1);
    }
    if (t->used >= STACKS_MAX || t->frames_total + (size_t)count > FRAMES_MAX) {
        return -1;
    }
    jvmtiFrameInfo *copy = malloc((count > 0 ? (size_t)count : 1) * sizeof *frames);
    if (copy == NULL) {
        return -1;
    }
    memcpy(copy, frames, (size_t)count * sizeof *frames);
    t->slots[slot] = (stack_slot) { h, count, t->used, copy };
    t->order[t->used] = (int)slot;
    t->frames_total += (size_t)count;
    return t->used++;
}

static void stack_table_free(stack_table *t) {
    if (t->slots != NULL) {
        for (size_t i = 0; i < STACK_SLOTS; i++) {
            free(t->slots[i].frames);
        }
    }
    free(t->slots);
    free(t->order);
}

/* ---- one answer ---- */

enum { STATE_KINDS = 7 };
static const char *const state_names[STATE_KINDS] = { "NEW", "RUNNABLE", "BLOCKED", "WAITING", "TIMED_WAITING", "TERMINATED", "UNKNOWN" };

typedef struct {
    command_ctx *ctx;
    int want_frames;
    int want_locks;
    int summary;
    int mounted_only;
    jint max_depth;
    jvmtiFrameInfo *frames;
    jmethodID *methods;      /* the methods of frames, for thread_snapshot_locks */
    stack_table stacks;
    jlong seen;
    jlong count;
    jlong by_state[STATE_KINDS];
    jlong mounted;
    jlong pinned;
    int locks_incomplete;
    int failed;              /* the walk itself failed */
} answer;

static int state_kind(jint state) {
    const char *name = thread_state_name(state);
    for (int i = 0; i < STATE_KINDS - 1; i++) {
        if (strcmp(state_names[i], name) == 0) {
            return i;
        }
    }
    return STATE_KINDS - 1;
}

/* Pinned: cannot unmount while it waits, so it keeps its carrier. The JDK says so in the
 * VirtualThread state (PINNED, TIMED_PINNED: parked while pinned); a thread blocked or waiting that
 * still has a carrier is pinned too (on JDK 21-23, entering a contended monitor). */
static int is_pinned(JNIEnv *jni, jthread thread, jint jvmti_state, int mounted) {
    jint state = (*jni)->GetIntField(jni, thread, vt.vt_state);
    if ((vt.pinned >= 0 && state == vt.pinned) || (vt.timed_pinned >= 0 && state == vt.timed_pinned)) {
        return 1;
    }
    return mounted && (jvmti_state & (JVMTI_THREAD_STATE_BLOCKED_ON_MONITOR_ENTER | JVMTI_THREAD_STATE_WAITING)) != 0;
}

static void write_summary(answer *a) {
    json_writer *w = a->ctx->out;
    json_key(w, "summary");
    json_begin_object(w);
    json_key(w, "count");
    json_int(w, a->count);
    json_key(w, "mounted");
    json_int(w, a->mounted);
    json_key(w, "pinned");
    json_int(w, a->pinned);
    json_key(w, "byState");
    json_begin_object(w);
    for (int i = 0; i < STATE_KINDS; i++) {
        if (a->by_state[i] > 0) {
            json_key(w, state_names[i]);
            json_int(w, a->by_state[i]);
        }
    }
    json_end_object(w);
    json_end_object(w);
}

/* Writes the thread's stack, left in a->frames; returns how many frames that is. */
static jint write_frames(answer *a, jthread thread) {
    json_writer *w = a->ctx->out;
    jint count = 0;
    jvmtiError err = (*the_agent.jvmti)->GetStackTrace(the_agent.jvmti, thread, 0, a->max_depth, a->frames, &count);
    if (err != JVMTI_ERROR_NONE) {
        count = 0;
    }
    int index = stack_index(&a->stacks, a->frames, count);
    if (index >= 0) {
        json_key(w, "stack");
        json_int(w, index);
    } else {
        json_key(w, "frames");
        frames_write(w, a->ctx->jni, a->frames, count);
    }
    if (err == JVMTI_ERROR_NONE && count == a->max_depth) {
        json_key(w, "truncated");
        json_bool(w, 1);
    }
    return count;
}

static void visit(answer *a, jthread thread) {
    JNIEnv *jni = a->ctx->jni;
    json_writer *w = a->ctx->out;
    thread_facts facts;
    if (++a->seen % 8192 == 0) {
        /* whitespace, valid anywhere between JSON tokens: a long walk that writes little (a
         * summary, a selection) still shows the client it is alive */
        json_raw(w, " ");
        json_flush(w);
    }
    jthread carrier = (*jni)->GetObjectField(jni, thread, vt.carrier);
    if (a->mounted_only && carrier == NULL) {
        return;
    }
    if (thread_facts_get(jni, thread, &facts) != JVMTI_ERROR_NONE) {
        if (carrier != NULL) (*jni)->DeleteLocalRef(jni, carrier);
        return; /* ended meanwhile */
    }
    if (!thread_set_wants(a->ctx->req, facts.id)) {
        if (carrier != NULL) (*jni)->DeleteLocalRef(jni, carrier);
        thread_facts_free(&facts);
        return;
    }
    int pinned = is_pinned(jni, thread, facts.state, carrier != NULL);
    a->count++;
    a->by_state[state_kind(facts.state)]++;
    a->mounted += carrier != NULL;
    a->pinned += pinned;
    if (!a->summary) {
        json_begin_object(w);
        json_key(w, "thread");
        json_begin_object(w);
        thread_facts_write(w, &facts, NULL);
        json_key(w, "virtual");
        json_bool(w, 1);
        if (carrier != NULL) {
            json_key(w, "carrierId");
            json_int(w, thread_java_id(jni, carrier));
        }
        json_key(w, "pinned");
        json_bool(w, pinned);
        json_end_object(w);
        jint count = a->want_frames ? write_frames(a, thread) : 0;
        if (a->want_locks) {
            lock_facts locks;
            memset(&locks, 0, sizeof locks);
            locks.owner_id = -1;
            /* the frames were taken just before; the snapshot's depths are matched to them */
            for (jint i = 0; a->want_frames && i < count; i++) {
                a->methods[i] = a->frames[i].method;
            }
            if (thread_snapshot_locks(jni, thread, a->want_frames ? a->methods : NULL, count, &locks) != 0) {
                a->locks_incomplete = 1;
            }
            if ((facts.state & JVMTI_THREAD_STATE_PARKED) != 0 && locks_collect_parked(jni, thread, &locks) != 0) {
                a->locks_incomplete = 1;
            }
            locks_write(w, &locks, 1);
            lock_facts_free(&locks, 1);
        }
        json_end_object(w);
    }
    if (carrier != NULL) {
        (*jni)->DeleteLocalRef(jni, carrier);
    }
    thread_facts_free(&facts);
}

/* Calls visit for each virtual thread of the container and, depth first, of its children. */
static void walk(answer *a, jobject container, int depth) {
    JNIEnv *jni = a->ctx->jni;
    if (depth > CONTAINER_DEPTH_MAX || a->failed || a->ctx->out->failed) {
        return;
    }
    for (int pass = 0; pass < 2; pass++) {
        if ((*jni)->PushLocalFrame(jni, 16) != 0) {
            jni_cleared_exception(jni);
            a->failed = 1;
            return;
        }
        jobject stream = (*jni)->CallObjectMethod(jni, container, pass == 0 ? vt.container_threads : vt.container_children);
        jobject it = jni_failed(jni, stream) ? NULL : (*jni)->CallObjectMethod(jni, stream, vt.stream_iterator);
        if (jni_failed(jni, it)) {
            a->failed = 1;
        }
        while (it != NULL && !a->failed && !a->ctx->out->failed) {
            jboolean more = (*jni)->CallBooleanMethod(jni, it, vt.has_next);
            if (jni_cleared_exception(jni)) {
                a->failed = 1;
                break;
            }
            if (!more) {
                break;
            }
            jobject item = (*jni)->CallObjectMethod(jni, it, vt.next);
            if (jni_failed(jni, item)) {
                a->failed = 1;
                break;
            }
            if (pass == 1) {
                walk(a, item, depth + 1);
            } else if ((*jni)->IsInstanceOf(jni, item, vt.virtual_thread)) {
                /* java.lang.VirtualThread only, whose fields visit reads: not Thread.isVirtual(), which
                 * is also true of the BoundVirtualThread a JVM without continuations uses */
                visit(a, item);
            }
            (*jni)->DeleteLocalRef(jni, item);
        }
        (*jni)->PopLocalFrame(jni, NULL);
    }
}

void cmd_vthreads(command_ctx *ctx) {
    JNIEnv *jni = ctx->jni;
    answer a;
    memset(&a, 0, sizeof a);
    a.ctx = ctx;
    a.want_frames = request_bool(ctx->req, "frames", 0);
    a.want_locks = request_bool(ctx->req, "locks", 0);
    a.summary = request_bool(ctx->req, "summary", 0);
    a.mounted_only = request_bool(ctx->req, "mountedOnly", 0);
    int64_t depth = request_int(ctx->req, "maxDepth", FRAMES_DEFAULT_DEPTH);
    if (depth < 1 || depth > FRAMES_DEPTH_LIMIT) {
        command_fail(ctx, "bad_request", "maxDepth must be between 1 and 65536");
        return;
    }
    a.max_depth = (jint)depth;
    const char *why = prepare(jni);
    if (why == NULL && !capabilities_has_virtual_threads(&the_agent.held)) {
        why = "the target JVM did not grant the agent can_support_virtual_threads";
    }
    if (why != NULL) {
        command_fail(ctx, "no_virtual_threads", why);
        return;
    }
    if (a.want_frames) {
        a.frames = malloc((size_t)a.max_depth * sizeof *a.frames);
        a.methods = malloc((size_t)a.max_depth * sizeof *a.methods);
        a.stacks.slots = calloc(STACK_SLOTS, sizeof *a.stacks.slots);
        a.stacks.order = calloc(STACKS_MAX, sizeof *a.stacks.order);
        if (a.frames == NULL || a.methods == NULL || a.stacks.slots == NULL || a.stacks.order == NULL) {
            free(a.frames);
            free(a.methods);
            stack_table_free(&a.stacks);
            command_fail(ctx, "out_of_memory", "cannot allocate room for the stacks");
            return;
        }
    }
    jobject root = (*jni)->CallStaticObjectMethod(jni, vt.containers, vt.root);
    if (jni_failed(jni, root)) {
        free(a.frames);
        free(a.methods);
        stack_table_free(&a.stacks);
        command_fail(ctx, "internal", "ThreadContainers.root() failed");
        return;
    }
    command_result(ctx);
    json_writer *w = ctx->out;
    json_begin_object(w);
    json_key(w, "time");
    json_int(w, frames_wall_millis());
    json_key(w, "threads");
    json_begin_array(w);
    walk(&a, root, 0);
    json_end_array(w);
    if (a.want_frames) {
        json_key(w, "stacks");
        json_begin_array(w);
        for (int i = 0; i < a.stacks.used; i++) {
            const stack_slot *s = &a.stacks.slots[a.stacks.order[i]];
            frames_write(w, jni, s->frames, s->count);
        }
        json_end_array(w);
    }
    json_key(w, "lockSource");
    json_cstring(w, thread_snapshot_available(jni) ? "snapshot" : "parked-only");
    json_key(w, "lockFactsComplete");
    json_bool(w, !a.locks_incomplete && !a.failed);
    json_key(w, "complete");
    json_bool(w, !a.failed);
    write_summary(&a);
    json_end_object(w);
    (*jni)->DeleteLocalRef(jni, root);
    free(a.frames);
    free(a.methods);
    stack_table_free(&a.stacks);
}

/* The `blockers` command: for the platform threads asked for (by id), what a ThreadSnapshot says
 * they are blocked entering or wait on. ThreadMXBean says nothing for a platform thread blocked on
 * a monitor that an unmounted virtual thread owns; JDK 25's ThreadSnapshot does. Answer:
 * {"threads": [{"id": N, "waitingFor": {...}}]}. */
void cmd_blockers(command_ctx *ctx) {
    JNIEnv *jni = ctx->jni;
    jvmtiEnv *jvmti = the_agent.jvmti;
    if (prepare(jni) != NULL || !thread_snapshot_available(jni)) {
        command_fail(ctx, "unsupported", "this JVM has no jdk.internal.vm.ThreadSnapshot (JDK 25+)");
        return;
    }
    jint count = 0;
    jthread *threads = NULL;
    jvmtiError err = (*jvmti)->GetAllThreads(jvmti, &count, &threads);
    if (err != JVMTI_ERROR_NONE) {
        command_fail_jvmti(ctx, "GetAllThreads", err);
        return;
    }
    jni_reserve_locals(jni, count);
    command_result(ctx);
    json_writer *w = ctx->out;
    json_begin_object(w);
    json_key(w, "threads");
    json_begin_array(w);
    for (jint i = 0; i < count; i++) {
        jlong id = thread_java_id(jni, threads[i]);
        if (request_get(ctx->req, "threads") != NULL && thread_set_wants(ctx->req, id)) {
            lock_facts facts;
            memset(&facts, 0, sizeof facts);
            facts.owner_id = -1;
            if (thread_snapshot_locks(jni, threads[i], NULL, 0, &facts) == 0 && facts.waiting != WAIT_NONE) {
                json_begin_object(w);
                json_key(w, "id");
                json_int(w, id);
                locks_write(w, &facts, 0);
                json_end_object(w);
            }
            lock_facts_free(&facts, 1);
        }
        (*jni)->DeleteLocalRef(jni, threads[i]);
    }
    json_end_array(w);
    json_end_object(w);
    (*jvmti)->Deallocate(jvmti, (unsigned char *)threads);
}
