/* The `vthreads` command: every virtual thread with its facts, carrier and, on request, its stack
 * and lock facts. See virtual_threads.h for how they are found.
 *
 * Answer: {"time", "lockSource", "lockFactsComplete", "threads": [...], "stacks": [...],
 * "summary": {...}}. Threads are streamed as they are found; a stack is written once in "stacks"
 * and referred to by its index ("stack": N) from every thread that has it, so that 100,000 threads
 * parked at the same place cost one stack. The agent's memory for that is bounded (STACKS_MAX
 * distinct stacks, FRAMES_MAX frames); past the bound a thread carries its own "frames".
 *
 * Request: "frames", "maxDepth", "locks", "summary" (counts only), "mountedOnly" (to find carriers),
 * "waitingOnly" (those that may wait for a lock: see may_wait_for_lock), "threads" (ids), "atOnce".
 *
 * "atOnce" (with "threads", at most AT_ONCE_MAX of them, and "frames"): the states and frames of
 * those threads from one GetThreadListStackTraces, one safepoint, instead of one moment each: what
 * they were doing at the same instant (the CLI counts the threads holding a pool's connections so),
 * without lock facts or carriers, which are read at moments of their own.
 *
 * Frames and lock facts of a virtual thread are one checked moment, as for platform threads
 * (thread_moment.h), taken MOMENT_BATCH threads at a time: lock facts from a ThreadSnapshot
 * (JDK 25+ after a live attach) or JVMTI (start-up mode), never ThreadMXBean, which knows no virtual
 * thread. The owner of a monitor a snapshot names is not part of it; the CLI matches it against the
 * monitors the threads own. Without either source (JDK 21-24, live attach) only park blockers are
 * known ("lockFactsComplete": false). */
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
#include "thread_moment.h"
#include "thread_set.h"
#include "thread_snapshot.h"
#include "thread_state.h"
#include "virtual_threads.h"

#define STACK_SLOTS 8192          /* power of two */
#define STACKS_MAX (STACK_SLOTS / 2)
#define FRAMES_MAX (1 << 20)
#define AT_ONCE_MAX 4096

static const virtual_thread_layout *vt;

/* ---- the distinct stacks of one answer ---- */

/* Where a virtual thread is mounted and what the JDK calls its state (VirtualThread.state), as read
 * before its moment is taken; read again after, they tell whether it mounted, unmounted or changed
 * state meanwhile. */
typedef struct {
    jlong carrier_id;        /* 0 when unmounted */
    jint vt_state;
} mount_facts;

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

/* Threads whose moments are taken in one thread_moments_take, and kept as local references until
 * they are written. */
#define MOMENT_BATCH 256

typedef struct {
    command_ctx *ctx;
    int want_frames;
    int want_locks;
    int checked_locks;       /* a source of lock facts for virtual threads (thread_moment.h) */
    int summary;
    int mounted_only;
    int waiting_only;
    int at_once;
    jthread *together;       /* at_once: global references to the threads asked for, as the walk meets them */
    jint together_count;
    jint max_depth;
    stack_table stacks;
    lock_subject *subjects;  /* MOMENT_BATCH of them, the first pending taken */
    mount_facts *mounts;     /* each subject's, as read before its moment */
    thread_moment *moments;
    size_t pending;
    jlong seen;              /* virtual threads the walk met, whether asked for or not */
    int root_counted;        /* the root container's own virtual threads counted, not walked */
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

static mount_facts mount_facts_read(JNIEnv *jni, jthread thread) {
    mount_facts facts = { 0, (*jni)->GetIntField(jni, thread, vt->state) };
    jthread carrier = (*jni)->GetObjectField(jni, thread, vt->carrier);
    if (carrier != NULL) {
        facts.carrier_id = thread_java_id(jni, carrier);
        (*jni)->DeleteLocalRef(jni, carrier);
    }
    return facts;
}

/* Pinned: cannot unmount while it waits, so it keeps its carrier. The JDK says so in the
 * VirtualThread state (PINNED, TIMED_PINNED: parked while pinned). Before JDK 24 a monitor never lets
 * a virtual thread unmount: one that JVMTI finds blocked entering a monitor or in Object.wait while
 * the JDK still calls it RUNNING on its carrier is pinned too. From 24 on it unmounts there, and
 * RUNNING with BLOCKED is also the moment it tries to (before BLOCKING): the CLI tells a pinned one
 * from its frames (a class initializer or a native frame under the wait). One on its way off its
 * carrier (PARKING, TIMED_PARKING, BLOCKING, ...) is not pinned. */
static int is_pinned(mount_facts facts, jint jvmti_state) {
    if ((vt->pinned >= 0 && facts.vt_state == vt->pinned) || (vt->timed_pinned >= 0 && facts.vt_state == vt->timed_pinned)) {
        return 1;
    }
    return vt->blocking < 0 && facts.carrier_id != 0 && vt->running >= 0 && facts.vt_state == vt->running
        && (jvmti_state & (JVMTI_THREAD_STATE_BLOCKED_ON_MONITOR_ENTER | JVMTI_THREAD_STATE_WAITING)) != 0;
}

static void count_thread(answer *a, jint state, int mounted, int pinned) {
    a->count++;
    a->by_state[state_kind(state)]++;
    a->mounted += mounted;
    a->pinned += pinned;
}

/* Whether the thread may be waiting for a lock, as "waitingOnly" keeps them: blocked entering a
 * monitor, in Object.wait, parked on a blocker (not a sleep, nor a park without one), or mounted
 * (it may own a monitor a platform thread waits for, whose owner ThreadMXBean names as the carrier). */
static int may_wait_for_lock(JNIEnv *jni, jthread thread, jint state, int mounted) {
    if (mounted || (state & (JVMTI_THREAD_STATE_BLOCKED_ON_MONITOR_ENTER | JVMTI_THREAD_STATE_IN_OBJECT_WAIT)) != 0) {
        return 1;
    }
    return (state & JVMTI_THREAD_STATE_PARKED) != 0 && locks_has_park_blocker(jni, thread);
}

/* Whether an unmounted thread is parked without a blocker, as its VirtualThread state and
 * Thread.parkBlocker say: one that sleeps (a timed park) or parks that way, which may_wait_for_lock
 * would pass over too, told from two field reads without the JVMTI call for its state (the most of
 * a walk of sleeping threads). 0 when it cannot be told so. */
static int parked_without_blocker(JNIEnv *jni, jthread thread) {
    jint state = (*jni)->GetIntField(jni, thread, vt->state);
    return ((vt->parked >= 0 && state == vt->parked) || (vt->timed_parked >= 0 && state == vt->timed_parked))
        && !locks_has_park_blocker(jni, thread);
}

static void write_summary(answer *a) {
    json_writer *w = a->ctx->out;
    json_begin_object_field(w, "summary");
    json_field_int(w, "count", a->count);
    json_field_int(w, "mounted", a->mounted);
    json_field_int(w, "pinned", a->pinned);
    json_begin_object_field(w, "byState");
    for (int i = 0; i < STATE_KINDS; i++) {
        if (a->by_state[i] > 0) {
            json_field_int(w, state_names[i], a->by_state[i]);
        }
    }
    json_end_object(w);
    json_end_object(w);
}

/* Writes the frames of the thread's moment. */
static void write_frames(answer *a, const thread_moment *m) {
    json_writer *w = a->ctx->out;
    int index = stack_index(&a->stacks, thread_moment_frames(m), m->count);
    if (index >= 0) {
        json_field_int(w, "stack", index);
    } else {
        json_key(w, "frames");
        frames_write(w, a->ctx->jni, thread_moment_frames(m), m->count);
    }
    if (m->truncated) {
        json_field_bool(w, "truncated", 1);
    }
}

/* Writes one thread; m is its moment (state, frames, lock facts) or NULL when the request wants
 * neither frames nor locks; before, its mount facts as read before the moment. When they changed by
 * the time the moment was taken, the thread mounted or unmounted meanwhile: its frames may be of
 * either side, so it is written with no carrier and not pinned, and said to be unsettled there. */
static void write_thread(answer *a, jthread thread, const thread_moment *m, mount_facts before) {
    JNIEnv *jni = a->ctx->jni;
    json_writer *w = a->ctx->out;
    thread_facts facts;
    if (thread_facts_get(jni, thread, &facts) != JVMTI_ERROR_NONE) {
        return; /* ended meanwhile */
    }
    /* no thread_facts_read_cpu: HotSpot's GetThreadCpuTime refuses a virtual thread, and the facts' -1 says unknown */
    if (m != NULL) {
        facts.state = m->state;
    } else if ((*the_agent.jvmti)->GetThreadState(the_agent.jvmti, thread, &facts.state) != JVMTI_ERROR_NONE) {
        thread_facts_free(&facts);
        return;
    }
    mount_facts after = mount_facts_read(jni, thread);
    int settled = after.carrier_id == before.carrier_id && after.vt_state == before.vt_state;
    int pinned = settled && is_pinned(after, facts.state);
    count_thread(a, facts.state, after.carrier_id != 0, pinned);
    json_begin_object(w);
    json_begin_object_field(w, "thread");
    thread_facts_write(w, &facts, NULL);
    json_field_bool(w, "virtual", 1);
    if (settled && after.carrier_id != 0) {
        json_field_int(w, "carrierId", after.carrier_id);
    }
    json_field_bool(w, "pinned", pinned);
    if (!settled) {
        json_field_bool(w, "mountUnsettled", 1);
    }
    json_end_object(w);
    if (a->want_frames) {
        write_frames(a, m);
    }
    if (a->want_locks) {
        thread_moment_write_locks(w, m, 1);
    }
    json_end_object(w);
    thread_facts_free(&facts);
}

/* Takes the moments of the pending threads and writes them; their references are dropped. */
static void flush(void *context) {
    answer *a = context;
    JNIEnv *jni = a->ctx->jni;
    if (a->pending == 0) {
        return;
    }
    if (a->checked_locks) {
        int usage_calls_left = LOCKS_MONITOR_USAGE_CALLS; /* one allowance for every batch */
        if (thread_moments_take(jni, a->subjects, a->pending, a->max_depth, 1, &usage_calls_left, a->moments) != 0) {
            a->locks_incomplete = 1;
        }
    } else {
        /* no source of monitor facts for virtual threads (before JDK 25): frames, and what a
         * parked thread is parked on */
        for (size_t i = 0; i < a->pending; i++) {
            thread_moment *m = &a->moments[i];
            if (thread_moment_take(a->subjects[i].thread, a->max_depth, m) == 0 && a->want_locks
                    && (m->state & JVMTI_THREAD_STATE_PARKED) != 0 && locks_collect_parked(jni, a->subjects[i].thread, &m->locks) != 0) {
                a->locks_incomplete = 1;
            }
        }
    }
    for (size_t i = 0; i < a->pending; i++) {
        if (a->moments[i].state != 0) { /* 0: it ended before its moment was taken */
            write_thread(a, a->subjects[i].thread, &a->moments[i], a->mounts[i]);
        }
        free(a->subjects[i].methods);
        (*jni)->DeleteLocalRef(jni, a->subjects[i].thread);
    }
    thread_moments_free(a->moments, a->pending);
    memset(a->subjects, 0, a->pending * sizeof *a->subjects);
    memset(a->moments, 0, a->pending * sizeof *a->moments);
    memset(a->mounts, 0, a->pending * sizeof *a->mounts);
    a->pending = 0;
}

/* Looks at one virtual thread. Returns 1 when its reference is kept (pending, for flush). */
static int visit(void *context, jthread thread) {
    answer *a = context;
    JNIEnv *jni = a->ctx->jni;
    json_writer *w = a->ctx->out;
    if (++a->seen % 8192 == 0) {
        /* whitespace, valid anywhere between JSON tokens: a long walk that writes little (a
         * summary, a selection) still shows the client it is alive */
        json_raw(w, " ");
        json_flush(w);
    }
    mount_facts before = mount_facts_read(jni, thread);
    int mounted = before.carrier_id != 0;
    if ((a->mounted_only && !mounted) || (a->waiting_only && !mounted && parked_without_blocker(jni, thread))) {
        return 0;
    }
    jint state = 0;
    jlong id = thread_java_id(jni, thread);
    if (!thread_set_wants(a->ctx->req, id)
            || (*the_agent.jvmti)->GetThreadState(the_agent.jvmti, thread, &state) != JVMTI_ERROR_NONE
            || (state & JVMTI_THREAD_STATE_ALIVE) == 0
            || (a->waiting_only && !may_wait_for_lock(jni, thread, state, mounted))) {
        return 0;
    }
    if (a->summary) {
        count_thread(a, state, mounted, is_pinned(before, state));
        return 0;
    }
    if (a->at_once) {
        if (a->together_count < AT_ONCE_MAX) {
            jthread global = (*jni)->NewGlobalRef(jni, thread);
            if (global != NULL) {
                a->together[a->together_count++] = global;
            }
        }
        return 0;
    }
    if (!a->want_frames && !a->want_locks) {
        write_thread(a, thread, NULL, before);
        return 0;
    }
    a->mounts[a->pending] = before;
    a->subjects[a->pending++] = (lock_subject) { .thread = thread, .id = id, .is_virtual = 1 };
    if (a->pending == MOMENT_BATCH) {
        flush(a);
    }
    return 1;
}

static int stopped(void *context) {
    const answer *a = context;
    return a->failed || a->ctx->out->failed;
}

/* Whether any platform thread has a continuation mounted: when none has, no virtual thread is
 * mounted, and "mountedOnly" needs no walk of the root. 1 as well when it cannot be told. */
static int any_mounted(JNIEnv *jni) {
    jint count = 0;
    jthread *threads = NULL;
    if (vt->continuation == NULL || (*the_agent.jvmti)->GetAllThreads(the_agent.jvmti, &count, &threads) != JVMTI_ERROR_NONE) {
        return 1;
    }
    jni_reserve_locals(jni, count);
    int mounted = 0;
    for (jint i = 0; i < count; i++) {
        jobject continuation = (*jni)->GetObjectField(jni, threads[i], vt->continuation);
        if (continuation != NULL) {
            mounted = 1;
            (*jni)->DeleteLocalRef(jni, continuation);
        }
        (*jni)->DeleteLocalRef(jni, threads[i]);
    }
    (*the_agent.jvmti)->Deallocate(the_agent.jvmti, (unsigned char *)threads);
    return mounted;
}

/* Writes the threads walk gathered for "atOnce", their states and frames from one
 * GetThreadListStackTraces. A thread that ended meanwhile is left out. */
static void write_together(answer *a) {
    JNIEnv *jni = a->ctx->jni;
    jvmtiStackInfo *infos = NULL;
    if (a->together_count == 0) {
        return;
    }
    jvmtiError err = (*the_agent.jvmti)->GetThreadListStackTraces(the_agent.jvmti, a->together_count, a->together, a->max_depth, &infos);
    if (err != JVMTI_ERROR_NONE) {
        a->failed = 1;
        return;
    }
    for (jint i = 0; i < a->together_count; i++) {
        thread_moment m;
        memset(&m, 0, sizeof m);
        m.state = infos[i].state;
        m.stack = &infos[i];
        m.count = infos[i].frame_count;
        m.truncated = infos[i].frame_count == a->max_depth;
        thread_facts facts;
        if ((m.state & JVMTI_THREAD_STATE_ALIVE) == 0 || thread_facts_get(jni, a->together[i], &facts) != JVMTI_ERROR_NONE) {
            continue;
        }
        facts.state = m.state;
        count_thread(a, m.state, 0, 0);
        json_writer *w = a->ctx->out;
        json_begin_object(w);
        json_begin_object_field(w, "thread");
        thread_facts_write(w, &facts, NULL);
        json_field_bool(w, "virtual", 1);
        json_end_object(w);
        write_frames(a, &m);
        json_end_object(w);
        thread_facts_free(&facts);
    }
    (*the_agent.jvmti)->Deallocate(the_agent.jvmti, (unsigned char *)infos);
}

static void answer_free(JNIEnv *jni, answer *a) {
    for (jint i = 0; i < a->together_count; i++) {
        (*jni)->DeleteGlobalRef(jni, a->together[i]);
    }
    free(a->together);
    free(a->subjects);
    free(a->moments);
    free(a->mounts);
    stack_table_free(&a->stacks);
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
    a.waiting_only = request_bool(ctx->req, "waitingOnly", 0);
    a.at_once = request_bool(ctx->req, "atOnce", 0);
    int64_t depth = request_int(ctx->req, "maxDepth", FRAMES_DEFAULT_DEPTH);
    if (depth < 1 || depth > FRAMES_DEPTH_LIMIT) {
        command_fail(ctx, "bad_request", "maxDepth must be between 1 and 65536");
        return;
    }
    a.max_depth = (jint)depth;
    if (a.at_once && (request_get(ctx->req, "threads") == NULL || !a.want_frames || a.want_locks || a.summary)) {
        command_fail(ctx, "bad_request", "atOnce takes the frames of the threads listed, without locks or summary");
        return;
    }
    const char *why = virtual_threads_prepare(jni, &vt);
    if (why == NULL && !capabilities_has_virtual_threads(&the_agent.held)) {
        why = "the target JVM did not grant the agent can_support_virtual_threads";
    }
    if (why != NULL) {
        command_fail(ctx, "no_virtual_threads", why);
        return;
    }
    a.checked_locks = thread_snapshot_available(jni) || locks_from_jvmti();
    a.subjects = calloc(MOMENT_BATCH, sizeof *a.subjects);
    a.moments = calloc(MOMENT_BATCH, sizeof *a.moments);
    a.mounts = calloc(MOMENT_BATCH, sizeof *a.mounts);
    if (a.at_once) {
        a.together = calloc(AT_ONCE_MAX, sizeof *a.together);
    }
    if (a.want_frames) {
        a.stacks.slots = calloc(STACK_SLOTS, sizeof *a.stacks.slots);
        a.stacks.order = calloc(STACKS_MAX, sizeof *a.stacks.order);
    }
    if (a.subjects == NULL || a.moments == NULL || a.mounts == NULL || (a.at_once && a.together == NULL) || (a.want_frames && (a.stacks.slots == NULL || a.stacks.order == NULL))) {
        answer_free(jni, &a);
        command_fail(ctx, "out_of_memory", "cannot allocate room for the stacks");
        return;
    }
    jobject root = virtual_threads_root(jni);
    if (root == NULL) {
        answer_free(jni, &a);
        command_fail(ctx, "internal", "ThreadContainers.root() failed");
        return;
    }
    /* when no carrier has one mounted, a search for the mounted ones finds none in the root, where
     * most live: the root's are then counted as the JDK keeps them, not walked one by one */
    int tracked = 0;
    jlong root_count = a.mounted_only && !any_mounted(jni) ? virtual_threads_root_count(jni, root, &tracked) : -1;
    a.root_counted = root_count >= 0;
    command_result(ctx);
    json_writer *w = ctx->out;
    json_begin_object(w);
    json_field_int(w, "time", frames_wall_millis());
    json_begin_array_field(w, "threads");
    virtual_thread_visitor visitor = { visit, flush, stopped, &a, MOMENT_BATCH, a.root_counted };
    a.failed |= virtual_threads_walk(jni, root, &visitor) != 0;
    if (a.at_once && !a.failed) {
        write_together(&a);
    }
    json_end_array(w);
    if (a.want_frames) {
        json_begin_array_field(w, "stacks");
        for (int i = 0; i < a.stacks.used; i++) {
            const stack_slot *s = &a.stacks.slots[a.stacks.order[i]];
            frames_write(w, jni, s->frames, s->count);
        }
        json_end_array(w);
    }
    json_field_cstring(w, "lockSource", locks_from_jvmti() ? "jvmti" : thread_snapshot_available(jni) ? "snapshot" : "parked-only");
    json_field_bool(w, "lockFactsComplete", !a.locks_incomplete && !a.failed && (a.checked_locks || !a.want_locks));
    json_field_bool(w, "complete", !a.failed);
    write_summary(&a);
    /* plain `threads` tells from it that virtual threads exist */
    json_field_int(w, "found", a.seen + (a.root_counted ? root_count : 0));
    json_end_object(w);
    (*jni)->DeleteLocalRef(jni, root);
    answer_free(jni, &a);
}

/* The `blockers` command: for the platform threads asked for (by id), what a ThreadSnapshot says
 * they are blocked entering or wait on. ThreadMXBean says nothing for a platform thread blocked on
 * a monitor that an unmounted virtual thread owns; JDK 25's ThreadSnapshot does. Answer:
 * {"threads": [{"id": N, "waitingFor": {...}}]}. */
void cmd_blockers(command_ctx *ctx) {
    JNIEnv *jni = ctx->jni;
    jvmtiEnv *jvmti = the_agent.jvmti;
    if (virtual_threads_prepare(jni, &vt) != NULL || !thread_snapshot_available(jni)) {
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
    json_begin_array_field(w, "threads");
    for (jint i = 0; i < count; i++) {
        jlong id = thread_java_id(jni, threads[i]);
        if (request_get(ctx->req, "threads") != NULL && thread_set_wants(ctx->req, id)) {
            lock_facts facts;
            memset(&facts, 0, sizeof facts);
            facts.owner_id = -1;
            if (thread_snapshot_locks(jni, threads[i], NULL, 0, &facts) == 0 && facts.waiting != WAIT_NONE) {
                facts.owner_unknown = facts.waiting == WAIT_ENTER; /* a snapshot names no owner: the CLI looks among owned monitors */
                json_begin_object(w);
                json_field_int(w, "id", id);
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
