#include "thread_moment.h"

#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "frames.h"
#include "lock_fit.h"
#include "own_threads.h"
#include "virtual_hold.h"

/* The state bits two moments must share to be the same moment: java.lang.Thread.State and how the
 * thread waits, not whether it is interrupted, suspended or in native code. */
#define SAME_STATE_MASK (JVMTI_JAVA_LANG_THREAD_STATE_MASK | JVMTI_THREAD_STATE_PARKED \
                         | JVMTI_THREAD_STATE_IN_OBJECT_WAIT | JVMTI_THREAD_STATE_SLEEPING)
/* A stack is first asked for at most this depth: HotSpot gives the stack a buffer of the depth
 * asked for in the agent thread's resource area, and one larger than that area's standard 32 KiB
 * chunk is a malloc and free of its own (8192 frames: 128 KiB, glibc's mmap threshold, which the
 * free then raises for the whole JVM; see big_block.h). A stack that fills it is asked again. */
#define FIRST_TAKE_DEPTH 1024

static void release_stack(thread_moment *m) {
    if (m->stack != NULL) {
        (*the_agent.jvmti)->Deallocate(the_agent.jvmti, (unsigned char *)m->stack);
    }
    m->stack = NULL;
    m->count = 0;
    m->truncated = 0;
}

/* One thread's stack and state, to Deallocate; NULL when it cannot be had. */
static jvmtiStackInfo *take_stack(jthread thread, jint max_depth) {
    JNIEnv *jni = NULL;
    if ((*the_agent.vm)->GetEnv(the_agent.vm, (void **)&jni, JNI_VERSION_1_6) != JNI_OK) {
        return NULL;
    }
    virtual_hold hold = virtual_hold_take(jni, thread);
    jvmtiStackInfo *info = NULL;
    /* HotSpot 17 can answer NONE without stack info for one thread that exits during the
     * handshake (seen: a crash in HostileClientsIT's churn of short-lived threads) */
    jvmtiError err = hold == HOLD_SUSPENDED || hold == HOLD_NOT_NEEDED
        ? (*the_agent.jvmti)->GetThreadListStackTraces(the_agent.jvmti, 1, &thread, max_depth, &info) : JVMTI_ERROR_THREAD_NOT_ALIVE;
    virtual_hold_release(thread, hold);
    return err == JVMTI_ERROR_NONE ? info : NULL;
}

int thread_moment_take(jthread thread, jint max_depth, thread_moment *m) {
    jvmtiEnv *jvmti = the_agent.jvmti;
    memset(m, 0, sizeof *m);
    m->locks.owner_id = -1;
    if (max_depth <= 0) {
        return (*jvmti)->GetThreadState(jvmti, thread, &m->state) == JVMTI_ERROR_NONE
            && (m->state & JVMTI_THREAD_STATE_ALIVE) != 0 ? 0 : -1;
    }
    jint depth = max_depth < FIRST_TAKE_DEPTH ? max_depth : FIRST_TAKE_DEPTH;
    jvmtiStackInfo *info = take_stack(thread, depth);
    if (info != NULL && info->frame_count == depth && depth < max_depth) {
        (*jvmti)->Deallocate(jvmti, (unsigned char *)info);
        info = take_stack(thread, max_depth);
    }
    if (info == NULL) {
        return -1;
    }
    m->stack = info;
    m->state = info->state;
    if ((info->state & JVMTI_THREAD_STATE_ALIVE) == 0) {
        release_stack(m);
        return -1; /* ended since it was listed */
    }
    m->count = info->frame_count;
    m->truncated = info->frame_count == max_depth;
    return 0;
}

static int same_moment(const thread_moment *a, const thread_moment *b) {
    if ((a->state & SAME_STATE_MASK) != (b->state & SAME_STATE_MASK) || a->count != b->count) {
        return 0;
    }
    const jvmtiFrameInfo *x = thread_moment_frames(a);
    const jvmtiFrameInfo *y = thread_moment_frames(b);
    for (jint i = 0; i < a->count; i++) {
        if (x[i].method != y[i].method || x[i].location != y[i].location) {
            return 0;
        }
    }
    return 1;
}

/* Whether the source's own look at the thread (its state, and its top frame when it walked any)
 * is this moment. */
static int witness_is(JNIEnv *jni, const lock_witness *w, const thread_moment *m) {
    if (w->kind == WITNESS_NONE || w->state != (m->state & JVMTI_JAVA_LANG_THREAD_STATE_MASK)) {
        return 0;
    }
    if (w->frames_seen < 0 || m->stack == NULL) {
        return 1; /* no frames looked at, or none taken: the state is all there is to compare */
    }
    if (w->frames_seen == 0 || m->count == 0) {
        return w->frames_seen == 0 && m->count == 0;
    }
    return w->top_depth >= 0 && w->top_depth < m->count
        && frames_frame_is(jni, &thread_moment_frames(m)[w->top_depth], w->top_class, w->top_method, w->top_line);
}

/* How deep lock collection must look for the monitors this thread owns (see lock_subject): as
 * deep as the frames of its moment can hold one, also when it runs. The facts are of that moment;
 * a look at a thread that moved since shows another top frame or state (settle), as it does where
 * the whole stack is looked at. */
static jint owned_depth_of(JNIEnv *jni, const thread_moment *m) {
    if (m->truncated || m->count == 0) {
        return 0; /* deeper than asked, or no Java frames (or none were taken): all of it */
    }
    return frames_monitor_depth(jni, thread_moment_frames(m), m->count, (m->state & JVMTI_THREAD_STATE_IN_NATIVE) != 0);
}

/* The subject's state, owned depth, height and methods (the frames its owned monitors can be in)
 * from its moment. */
static void describe_subject(JNIEnv *jni, const thread_moment *m, lock_subject *s) {
    free(s->methods);
    s->state = m->state;
    s->owned_depth = owned_depth_of(jni, m);
    s->height = m->count;
    s->method_count = s->owned_depth > 0 && s->owned_depth < m->count ? s->owned_depth : m->count;
    s->methods = s->owned_depth < 0 || s->method_count == 0 ? NULL : malloc((size_t)s->method_count * sizeof *s->methods);
    for (jint i = 0; s->methods != NULL && i < s->method_count; i++) {
        s->methods[i] = thread_moment_frames(m)[i].method;
    }
    if (s->methods == NULL) {
        s->method_count = 0;
    }
}

static void clear_locks(lock_facts *f) {
    lock_facts_free(f, 1);
    memset(f, 0, sizeof *f);
    f->owner_id = -1;
}

/* m becomes the thread's latest moment (its stack is taken over). */
static void become(thread_moment *m, thread_moment *latest) {
    release_stack(m);
    m->state = latest->state;
    m->stack = latest->stack;
    m->count = latest->count;
    m->truncated = latest->truncated;
}

/* How the facts just collected for m's thread fit m, or the moment taken right after them; m
 * becomes that one when it is what they describe. LOCK_FIT_NOT when the thread moved (m is then
 * its latest moment); -1 when it has ended (m is left as it was). fresh: nothing was asked since m
 * was taken but this thread's own facts, so m is the look before a parked thread's blocker. */
static int settle(JNIEnv *jni, jthread thread, jint max_depth, jlong id, thread_moment *m, lock_facts *f, int fresh) {
    int parked = (m->state & JVMTI_THREAD_STATE_PARKED) != 0;
    lock_fit_result fit = lock_fit(m->state, m->count, id, f);
    if (!parked && fit == LOCK_FIT && witness_is(jni, &f->seen, m)) {
        return LOCK_FIT;
    }
    /* a parked thread's blocker is read here, between two looks of its own: no source sees it with
     * the thread's state and frames, and the source's pass over all threads may outlast a park */
    int only_blocker = parked && f->seen.kind == WITNESS_NONE && f->owned_count == 0 && f->waiting == WAIT_NONE;
    thread_moment before = { 0 };
    if (parked && !fresh && thread_moment_take(thread, max_depth, &before) != 0) {
        return -1;
    }
    const thread_moment *look = fresh ? m : &before;
    if (parked && (look->state & JVMTI_THREAD_STATE_PARKED) != 0 && locks_collect_parked(jni, thread, f) != 0) {
        release_stack(&before);
        return -1;
    }
    thread_moment after;
    if (thread_moment_take(thread, max_depth, &after) != 0) {
        release_stack(&before);
        return -1;
    }
    fit = lock_fit(after.state, after.count, id, f);
    /* a thread that parked since m was taken had its blocker read by no one: it goes round again,
     * parked, and its blocker is read then */
    int parked_since = !parked && (after.state & JVMTI_THREAD_STATE_PARKED) != 0;
    int fits = !parked_since && (f->seen.kind == WITNESS_NONE || witness_is(jni, &f->seen, &after))
        && (only_blocker || f->seen.kind == WITNESS_OWN_STACK || same_moment(m, &after))
        && (!parked || same_moment(look, &after)) ? (int)fit : LOCK_FIT_NOT;
    release_stack(&before);
    become(m, &after);
    return fits;
}

/* The facts of a thread its moment m found parked, from its blocker read as a field right before
 * that look (before, a local reference or NULL) and once more right after it: LOCK_FIT when both
 * reads found the same blocker, then f holds it. A blocker is set for one park and cleared after
 * it, so two reads of one object around a look at a park read that park's blocker, unless in that
 * instant the thread left it and parked twice more, first on another blocker and then on this
 * one again. Two reads of none prove nothing (a park can begin and end between them): settle's
 * second look decides then, as it does where the blocker moved. */
static int parked_around(JNIEnv *jni, jobject before, jthread thread, jlong id, const thread_moment *m, lock_facts *f) {
    if (before == NULL || (m->state & JVMTI_THREAD_STATE_PARKED) == 0) {
        return LOCK_FIT_NOT;
    }
    jobject after = locks_read_park_blocker(jni, thread);
    int fits = after != NULL && (*jni)->IsSameObject(jni, before, after) && locks_collect_parked_on(jni, after, thread, f) == 0
        && lock_fit(m->state, m->count, id, f) == LOCK_FIT;
    if (after != NULL) {
        (*jni)->DeleteLocalRef(jni, after);
    }
    if (!fits) {
        clear_locks(f);
        return LOCK_FIT_NOT;
    }
    return LOCK_FIT;
}

/* The threads of one thread_moments_take still to settle, and what their last round found. */
typedef struct {
    size_t *pending;     /* indices into subjects and moments */
    lock_subject *asked; /* what the source was asked about pending[k] */
    lock_facts *found;   /* its facts for pending[k] */
    int *fits;           /* settle's answer for found[k]; -1: the thread has ended */
    size_t count;        /* of pending */
} unsettled_threads;

static int unsettled_open(unsettled_threads *u, size_t capacity) {
    size_t room = capacity > 0 ? capacity : 1;
    u->pending = malloc(room * sizeof *u->pending);
    u->asked = malloc(room * sizeof *u->asked);
    u->found = calloc(room, sizeof *u->found);
    u->fits = malloc(room * sizeof *u->fits);
    u->count = 0;
    return u->pending != NULL && u->asked != NULL && u->found != NULL && u->fits != NULL ? 0 : -1;
}

static void unsettled_close(unsettled_threads *u) {
    free(u->pending);
    free(u->asked);
    free(u->found);
    free(u->fits);
}

/* Each thread's first moment. A thread the source need not be asked about (parked, nothing else to
 * know) is settled here from its blocker; a thread that needs the source is left in u. */
static void take_first_moments(JNIEnv *jni, lock_subject *subjects, size_t count, jint max_depth, int want_owned,
                               thread_moment *moments, unsettled_threads *u) {
    for (size_t i = 0; i < count; i++) {
        jobject blocker_before = locks_read_park_blocker(jni, subjects[i].thread);
        /* not taken: ended since it was listed; no frames, nothing to say about its locks */
        int taken = thread_moment_take(subjects[i].thread, max_depth, &moments[i]) == 0;
        if (taken) {
            describe_subject(jni, &moments[i], &subjects[i]);
        }
        /* the agent's own threads (this very dump's, its sessions' helpers) hold no lock worth checking */
        int own = own_threads_contains(jni, subjects[i].thread);
        int wanted = taken && !own && locks_needed(&subjects[i], want_owned);
        if (wanted && !locks_asks_source(&subjects[i], want_owned)) {
            /* parked, with nothing to ask the source: its blocker, read right before this look, is read
             * again now, right after it */
            lock_facts blocker = { .owner_id = -1 };
            if (parked_around(jni, blocker_before, subjects[i].thread, subjects[i].id, &moments[i], &blocker) == LOCK_FIT
                    || settle(jni, subjects[i].thread, max_depth, subjects[i].id, &moments[i], &blocker, 1) == LOCK_FIT) {
                moments[i].locks = blocker;
                wanted = 0;
            } else {
                clear_locks(&blocker);
                describe_subject(jni, &moments[i], &subjects[i]);
            }
        }
        if (blocker_before != NULL) {
            (*jni)->DeleteLocalRef(jni, blocker_before);
        }
        if (wanted) {
            u->pending[u->count++] = i;
        }
    }
}

/* One round with a source that answers for every pending thread in one pass (ThreadMXBean): each
 * thread's facts are then checked against its moment. */
static int ask_all_at_once(JNIEnv *jni, lock_subject *subjects, jint max_depth, int want_owned, int *usage_calls_left,
                           thread_moment *moments, unsettled_threads *u) {
    for (size_t k = 0; k < u->count; k++) {
        u->asked[k] = subjects[u->pending[k]];
        memset(&u->found[k], 0, sizeof u->found[k]);
    }
    int status = locks_collect(jni, u->asked, u->count, max_depth, want_owned, usage_calls_left, u->found);
    for (size_t k = 0; k < u->count; k++) {
        size_t i = u->pending[k];
        u->fits[k] = settle(jni, subjects[i].thread, max_depth, subjects[i].id, &moments[i], &u->found[k], 0);
    }
    return status;
}

/* One round with a source that looks at one thread at a time: each thread's moment is taken again
 * right before its facts and checked right after them, not after a pass over all threads that
 * outlasts the moment. */
static int ask_one_by_one(JNIEnv *jni, lock_subject *subjects, jint max_depth, int want_owned, int *usage_calls_left,
                          thread_moment *moments, unsettled_threads *u) {
    int status = 0;
    for (size_t k = 0; k < u->count; k++) {
        size_t i = u->pending[k];
        memset(&u->found[k], 0, sizeof u->found[k]);
        u->asked[k] = subjects[i]; /* locks_name_owners reads it also for a thread that ended */
        u->fits[k] = -1;
        thread_moment now;
        if (thread_moment_take(subjects[i].thread, max_depth, &now) != 0) {
            continue; /* ended: its last moment stays */
        }
        become(&moments[i], &now);
        describe_subject(jni, &moments[i], &subjects[i]);
        u->asked[k] = subjects[i];
        status |= locks_collect_one(jni, &u->asked[k], max_depth, want_owned, usage_calls_left, &u->found[k]);
        u->fits[k] = settle(jni, subjects[i].thread, max_depth, subjects[i].id, &moments[i], &u->found[k], 1);
    }
    return status;
}

/* Keeps the facts that fitted their moments; a thread that moved stays pending for the next round,
 * one that ended is marked unsettled. */
static void keep_what_fits(JNIEnv *jni, lock_subject *subjects, thread_moment *moments, int last_round,
                           unsettled_threads *u) {
    size_t moved = 0;
    for (size_t k = 0; k < u->count; k++) {
        size_t i = u->pending[k];
        /* a monitor not named by a source that looked at the thread in that state is not known to
         * it; one that a separate JVMTI call did not name was missed, and is asked again */
        int unknowable = u->fits[k] == LOCK_FIT_NO_MONITOR && u->found[k].seen.kind != WITNESS_NONE;
        if (u->fits[k] == LOCK_FIT || (unknowable && last_round)) {
            moments[i].locks = u->found[k];
            continue;
        }
        clear_locks(&u->found[k]);
        if (u->fits[k] != -1) {
            describe_subject(jni, &moments[i], &subjects[i]);
            u->pending[moved++] = i;
        } else {
            moments[i].unsettled = 1;
        }
    }
    u->count = moved;
}

int thread_moments_take(JNIEnv *jni, lock_subject *subjects, size_t count, jint max_depth, int want_owned,
                        int *usage_calls_left, thread_moment *moments) {
    unsettled_threads u;
    if (unsettled_open(&u, count) != 0) {
        unsettled_close(&u);
        return -1;
    }
    take_first_moments(jni, subjects, count, max_depth, want_owned, moments, &u);
    int status = 0;
    int by_thread = locks_by_thread(jni, want_owned);
    for (int attempt = 0; attempt < MOMENT_TRIES && u.count > 0; attempt++) {
        status |= by_thread ? ask_one_by_one(jni, subjects, max_depth, want_owned, usage_calls_left, moments, &u)
                            : ask_all_at_once(jni, subjects, max_depth, want_owned, usage_calls_left, moments, &u);
        /* owners that only the other threads' facts tell are named after the pass */
        status |= locks_name_owners(jni, u.asked, u.count, want_owned, u.found);
        keep_what_fits(jni, subjects, moments, attempt + 1 == MOMENT_TRIES, &u);
    }
    for (size_t k = 0; k < u.count; k++) {
        moments[u.pending[k]].unsettled = 1;
    }
    unsettled_close(&u);
    return status;
}

void thread_moment_write_locks(json_writer *w, const thread_moment *m, int want_owned) {
    locks_write(w, &m->locks, want_owned);
    if (m->unsettled) {
        json_field_bool(w, "unsettled", 1);
    }
}

void thread_moments_free(thread_moment *moments, size_t count) {
    for (size_t i = 0; i < count; i++) {
        release_stack(&moments[i]);
        lock_facts_free(&moments[i].locks, 1);
    }
}
