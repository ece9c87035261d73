/* `parks.start` / `parks.bytes` / `parks.install` / `parks.stop`: the waits of LockSupport.park,
 * parkNanos and parkUntil, with a blocker (every j.u.c lock, semaphore, condition, queue and future
 * parks there) or without one (code that parks by hand), on platform and virtual threads alike, and
 * virtual threads pinned to their carrier; a session engine (session.h) over the instrumentation
 * engine (instrument.h).
 *
 * Why probes in the bytecode rather than events or sampling: JVMTI has no park event, and a park of
 * a virtual thread unmounts it, so a carrier-based view (async-profiler's lock mode) loses it. A
 * probe in LockSupport runs on the thread that parks, a virtual one too, before and after the park,
 * whichever carrier it comes back on.
 *
 * start defines the client's probe class (ParkProbe) in the boot loader, binds its natives here and
 * answers the bytes of java.util.concurrent.locks.LockSupport and, on JDK 21+, of
 * java.lang.VirtualThread. The client adds the probes and sends the classes back (bytes, in pieces,
 * as trace's); install puts them in at once, or none. Every path out puts the classes back.
 *
 * The probes, as the client writes them: at the entry of park*(blocker, ...), start =
 * System.nanoTime() and owner = ParkProbe.ownerOf(blocker) (the blocker's
 * AbstractOwnableSynchronizer.exclusiveOwnerThread when it is one, read as the thread parks); at its
 * exit ParkProbe.parked(blocker, owner, start). In VirtualThread.parkOnCarrierThread, which a virtual
 * thread that cannot unmount parks in, ParkProbe.pinned(start) at the exit. A park is counted per
 * blocker (class, identity hash; the parks without a blocker share one entry) and site (its stack)
 * in a latency histogram, with the thread that waited and the owner; a park that began before the
 * install (a call still running in an earlier version of the method) is not counted. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent.h"
#include "aggregate.h"
#include "answer.h"
#include "big_block.h"
#include "capabilities.h"
#include "instrument.h"
#include "jni_util.h"
#include "latency_histogram.h"
#include "locks.h"
#include "method_table.h"
#include "park_owner_reads.h"
#include "probe_class.h"
#include "session.h"
#include "thread_facts.h"
#include "virtual_threads.h"

#define PARK_PROBE_CLASS "dev/jvmticli/probe/ParkProbe"
#define PARK_MAX_PROBE_BYTES 4096
#define PARK_MAX_CLASSES 2
#define PARK_MAX_LOCKS 1024
#define PARK_SITE_SLOTS 256
#define PARK_MAX_THREADS 8192
#define PARK_THREAD_SLOTS 16384
#define PARK_MAX_NAMES 4096
#define PARK_NAME_ARENA (256 * 1024)
#define PARK_SITE_WAITERS 64
#define PARK_SITE_OWNERS 8
#define PARK_MAX_PINNED 256
#define PARK_MAX_STILL 512      /* parks still waiting at the window's end, kept with their stacks */
#define PARK_MAX_BEFORE 512     /* threads parked at the window's end, platform and virtual, kept with their stacks */
#define PARK_OWNER_STACK_SLOTS 256
#define PARK_OWNER_SAMPLE_EVERY_NANOS 1000000LL /* at most one owner's stack read a millisecond */
#define PARK_AGENT_THREAD (-2)
#define NO_BLOCKER (-2)  /* the lock entry's class of the parks without a blocker (name indexes are 0 or more) */

typedef enum { KIND_PARK, KIND_ACQUIRE, KIND_SIGNAL } blocker_kind;
static const char *const KIND_NAMES[] = { "park", "acquire", "signal" };

typedef struct {
    int32_t name;       /* name index, -1 when not known */
    jlong id;           /* Thread.tid */
    int is_virtual;
    int is_agent;
    jweak ref;          /* to read its stack at the window's end; NULL when none could be made */
    jlong parked_since; /* the start of the park it is in (its entry probe), 0 when in none */
    int parked_in_session; /* a park of its began since the probes went in, also after the window's end */
} park_thread;

typedef struct {
    int used;
    jint hash;
    int32_t klass;      /* name index of the class signature */
    blocker_kind kind;
    uint64_t count;
    uint64_t total_nanos;
    uint64_t max_nanos;
} park_lock;

typedef struct {
    int32_t thread;
    uint64_t count;
} tally;

/* What a site (a stack_entry of the sites table, by slot) adds to its count and sum. */
typedef struct {
    latency_histogram waits;
    tally waiters[PARK_SITE_WAITERS];
    uint64_t other_waiters;     /* waits by threads past the table */
    tally owners[PARK_SITE_OWNERS];
    uint64_t other_owners;
    uint64_t no_owner;          /* waits that began with no exclusive owner (or a blocker that has none) */
} site_stats;

typedef struct {
    int32_t thread;
    uint64_t nanos;
    int32_t depth;
    jvmtiFrameInfo frames[STACK_MAX_FRAMES];
} pinned_episode;

/* A park read at the window's end as one moment (read_parked): still waiting then, or of a platform
 * thread parked since before the window. */
typedef struct {
    int32_t lock;
    int32_t thread;
    int32_t owner;      /* the blocker's exclusive owner when read, -1 when none */
    uint64_t waited_nanos;  /* since the park began; 0 for one since before the window (not known) */
    jint depth;
    jvmtiFrameInfo frames[STACK_MAX_FRAMES]; /* from the LockSupport frame down, as a site's */
} still_park;

static struct {
    session_state run;
    jlong since;                        /* parks that began before are not counted: the probes' install */
    jlong until;                        /* when the probes stopped counting */
    instrumented_class classes[PARK_MAX_CLASSES];
    int class_count;
    int installed;
    stack_table sites;                  /* key: lock index */
    site_stats *site_stats;             /* by slot of sites; a big block */
    park_lock locks[PARK_MAX_LOCKS];
    size_t lock_count;
    park_thread threads[PARK_MAX_THREADS];
    size_t thread_count;
    int32_t thread_slots[PARK_THREAD_SLOTS]; /* index + 1 by the hash of the Java id; 0: free */
    name_table names;
    uint64_t parks;
    uint64_t dropped;
    uint64_t pinned_count, pinned_nanos, pinned_max;
    pinned_episode *pinned;
    int pinned_kept;
    stack_table owner_stacks;           /* key: lock index, aux: the owner's thread index; count: samples */
    jlong last_owner_sample;
    uint64_t owner_samples_stale;       /* owner's stacks read after it had let go of the lock: not kept */
    const char *restore_failure;
    jvmtiError restore_error;
    int ended;                          /* the window's end has come: no park is counted any more */
    still_park *still;
    still_park *before;                 /* threads parked at the window's end: those with no park begun in
                                           the session have been parked since before it */
    int before_kept;
    uint64_t before_dropped;            /* past PARK_MAX_BEFORE */
    int before_virtual_unread;          /* the walk of the virtual threads failed: some may be missing */
    int still_kept;
    uint64_t still_dropped;             /* past PARK_MAX_STILL */
    uint64_t still_unread;              /* ended, or their thread did, before their stack was read */
    uint64_t untracked;                 /* parks begun by threads past the thread table: not followed */
} parks;

/* Kept for the agent's life once found; the probes read them only inside the session's gate. */
static struct {
    jclass probe;
    jclass ownable;
    jfieldID exclusive_owner;
    jclass acquire[3];      /* AQS, AQLS, StampedLock */
    jclass condition[2];    /* their ConditionObjects */
    jclass virtual_thread;  /* NULL before JDK 21 */
} refs;

static void release_refs(JNIEnv *jni) {
    jclass *all[] = { &refs.probe, &refs.ownable, &refs.acquire[0], &refs.acquire[1], &refs.acquire[2], &refs.condition[0],
                      &refs.condition[1], &refs.virtual_thread };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        if (*all[i] != NULL) {
            (*jni)->DeleteGlobalRef(jni, *all[i]);
            *all[i] = NULL;
        }
    }
    refs.exclusive_owner = NULL;
}
AGENT_RELEASE(release_refs)

static jlong now_nanos(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (jlong)now.tv_sec * 1000000000LL + now.tv_nsec;
}

static blocker_kind kind_of(JNIEnv *jni, jobject blocker) {
    for (int i = 0; i < 2; i++) {
        if (refs.condition[i] != NULL && (*jni)->IsInstanceOf(jni, blocker, refs.condition[i])) {
            return KIND_SIGNAL;
        }
    }
    for (int i = 0; i < 3; i++) {
        if (refs.acquire[i] != NULL && (*jni)->IsInstanceOf(jni, blocker, refs.acquire[i])) {
            return KIND_ACQUIRE;
        }
    }
    return KIND_PARK;
}

static int32_t find_thread_slot(jlong id) {
    uint32_t mask = PARK_THREAD_SLOTS - 1;
    for (uint32_t i = (uint32_t)((uint64_t)id * 2654435761u) & mask, probes = 0; probes < PARK_THREAD_SLOTS; i = (i + 1) & mask, probes++) {
        int32_t at = parks.thread_slots[i];
        if (at == 0 || parks.threads[at - 1].id == id) {
            return (int32_t)i;
        }
    }
    return -1;
}

/* The index of the thread in the session's table, adding it if new; PARK_AGENT_THREAD for the
 * agent's own threads, -1 when it cannot be kept. Takes the session's lock. */
static int32_t thread_index(JNIEnv *jni, jthread thread) {
    jvmtiEnv *jvmti = the_agent.jvmti;
    jlong id = thread_java_id(jni, thread);
    if ((*jvmti)->RawMonitorEnter(jvmti, parks.run.lock) != JVMTI_ERROR_NONE) {
        return -1;
    }
    int32_t slot = find_thread_slot(id);
    int32_t index = slot < 0 || parks.thread_slots[slot] == 0 ? -1 : parks.thread_slots[slot] - 1;
    (*jvmti)->RawMonitorExit(jvmti, parks.run.lock);
    if (index >= 0) {
        return parks.threads[index].is_agent ? PARK_AGENT_THREAD : index;
    }
    jvmtiThreadInfo info;
    memset(&info, 0, sizeof info);
    if ((*jvmti)->GetThreadInfo(jvmti, thread, &info) != JVMTI_ERROR_NONE) {
        info.name = NULL;
    }
    if (info.thread_group != NULL) (*jni)->DeleteLocalRef(jni, info.thread_group);
    if (info.context_class_loader != NULL) (*jni)->DeleteLocalRef(jni, info.context_class_loader);
    park_thread t = { -1, id, refs.virtual_thread != NULL && (*jni)->IsInstanceOf(jni, thread, refs.virtual_thread), 0, NULL, 0, 0 };
    t.is_agent = (the_agent.server_thread != NULL && (*jni)->IsSameObject(jni, thread, the_agent.server_thread))
            || (info.name != NULL && strncmp(info.name, "jvmti-cli ", 10) == 0);
    t.ref = t.is_agent ? NULL : (*jni)->NewWeakGlobalRef(jni, thread);
    if (t.ref == NULL) {
        jni_cleared_exception(jni);
    }
    if ((*jvmti)->RawMonitorEnter(jvmti, parks.run.lock) != JVMTI_ERROR_NONE) {
        agent_deallocate(info.name);
        if (t.ref != NULL) (*jni)->DeleteWeakGlobalRef(jni, t.ref);
        return -1;
    }
    slot = find_thread_slot(id);
    if (slot >= 0 && parks.thread_slots[slot] != 0) {
        index = parks.thread_slots[slot] - 1; /* added meanwhile by the owner's lookup of another thread */
    } else if (slot >= 0 && parks.thread_count < PARK_MAX_THREADS) {
        t.name = info.name == NULL ? -1 : name_table_intern(&parks.names, info.name);
        index = (int32_t)parks.thread_count++;
        parks.threads[index] = t;
        parks.thread_slots[slot] = index + 1;
        t.ref = NULL;
    }
    (*jvmti)->RawMonitorExit(jvmti, parks.run.lock);
    agent_deallocate(info.name);
    if (t.ref != NULL) (*jni)->DeleteWeakGlobalRef(jni, t.ref);
    return index >= 0 && parks.threads[index].is_agent ? PARK_AGENT_THREAD : index;
}

/* Under the lock: the lock entry for (hash, klass), added if new; NULL when the table is full. */
static park_lock *find_lock(jint hash, int32_t klass, blocker_kind kind, int32_t *index) {
    size_t mask = PARK_MAX_LOCKS - 1;
    for (size_t i = ((uint32_t)hash * 2654435761u) & mask, probes = 0; probes < PARK_MAX_LOCKS; i = (i + 1) & mask, probes++) {
        park_lock *l = &parks.locks[i];
        if (l->used && l->hash == hash && l->klass == klass) {
            *index = (int32_t)i;
            return l;
        }
        if (!l->used) {
            if (parks.lock_count * 4 >= PARK_MAX_LOCKS * 3) {
                return NULL;
            }
            *l = (park_lock){ 1, hash, klass, kind, 0, 0, 0 };
            parks.lock_count++;
            *index = (int32_t)i;
            return l;
        }
    }
    return NULL;
}

/* Under the lock: one more for thread in a bounded tally; 0 when it had no room. */
static int add_tally(tally *t, int slots, int32_t thread) {
    for (int i = 0; i < slots; i++) {
        if (t[i].count == 0 || t[i].thread == thread) {
            t[i].thread = thread;
            t[i].count++;
            return 1;
        }
    }
    return 0;
}

static void count_dropped(void) {
    __atomic_add_fetch(&parks.dropped, 1, __ATOMIC_RELAXED);
}

/* The current thread's index (PARK_AGENT_THREAD, or -1 when not known) and its stack below the
 * probe's own frame. */
static int32_t current_thread(JNIEnv *jni, jvmtiFrameInfo *frames, jint *depth) {
    jvmtiEnv *jvmti = the_agent.jvmti;
    jthread self = NULL;
    int32_t index = -1;
    if ((*jvmti)->GetCurrentThread(jvmti, &self) == JVMTI_ERROR_NONE && self != NULL) {
        index = thread_index(jni, self);
        (*jni)->DeleteLocalRef(jni, self);
    }
    if (index == PARK_AGENT_THREAD || (*jvmti)->GetStackTrace(jvmti, NULL, 1, STACK_MAX_FRAMES, frames, depth) != JVMTI_ERROR_NONE) {
        *depth = 0;
    }
    return index;
}

/* The blocker's class signature (to deallocate) and identity hash; 0, or -1 when either cannot be read. */
static int blocker_identity(JNIEnv *jni, jobject blocker, char **signature, jint *hash) {
    jvmtiEnv *jvmti = the_agent.jvmti;
    *signature = NULL;
    jclass klass = (*jni)->GetObjectClass(jni, blocker);
    if (klass == NULL || (*jvmti)->GetClassSignature(jvmti, klass, signature, NULL) != JVMTI_ERROR_NONE
            || (*jvmti)->GetObjectHashCode(jvmti, blocker, hash) != JVMTI_ERROR_NONE) {
        if (klass != NULL) (*jni)->DeleteLocalRef(jni, klass);
        agent_deallocate(*signature);
        *signature = NULL;
        return -1;
    }
    (*jni)->DeleteLocalRef(jni, klass);
    return 0;
}

static void record_park(JNIEnv *jni, jobject blocker, jthread owner, uint64_t nanos) {
    jvmtiEnv *jvmti = the_agent.jvmti;
    jvmtiFrameInfo frames[STACK_MAX_FRAMES];
    jint depth = 0;
    int32_t thread = current_thread(jni, frames, &depth);
    if (thread == PARK_AGENT_THREAD) {
        return;
    }
    int32_t owner_index = owner == NULL ? -1 : thread_index(jni, owner);
    jint hash = 0;
    char *signature = NULL;
    blocker_kind kind = KIND_PARK;
    int identified = blocker == NULL || blocker_identity(jni, blocker, &signature, &hash) == 0;
    if (blocker != NULL && identified) {
        kind = kind_of(jni, blocker);
    }
    if ((*jvmti)->RawMonitorEnter(jvmti, parks.run.lock) != JVMTI_ERROR_NONE) {
        agent_deallocate(signature);
        count_dropped();
        return;
    }
    if (thread >= 0) {
        __atomic_store_n(&parks.threads[thread].parked_since, 0, __ATOMIC_SEQ_CST);
    }
    if (parks.ended || !identified) { /* ended: still waiting at the window's end, end_window took it */
        (*jvmti)->RawMonitorExit(jvmti, parks.run.lock);
        agent_deallocate(signature);
        if (!parks.ended) {
            count_dropped();
        }
        return;
    }
    parks.parks++;
    int32_t name = blocker == NULL ? NO_BLOCKER : name_table_intern(&parks.names, signature);
    int32_t lock_index = -1;
    park_lock *lock = name == -1 ? NULL : find_lock(hash, name, kind, &lock_index);
    stack_entry *site = lock == NULL ? NULL : stack_table_find_or_add(&parks.sites, lock_index, -1, frames, depth);
    if (site == NULL) {
        count_dropped();
    } else {
        site_stats *s = &parks.site_stats[site - parks.sites.slots];
        lock->count++;
        lock->total_nanos += nanos;
        lock->max_nanos = nanos > lock->max_nanos ? nanos : lock->max_nanos;
        site->count++;
        site->sum += nanos;
        latency_record(&s->waits, nanos, 0);
        if (thread < 0 || !add_tally(s->waiters, PARK_SITE_WAITERS, thread)) {
            s->other_waiters++;
        }
        if (owner == NULL) {
            s->no_owner++;
        } else if (owner_index < 0 || !add_tally(s->owners, PARK_SITE_OWNERS, owner_index)) {
            s->other_owners++;
        }
    }
    (*jvmti)->RawMonitorExit(jvmti, parks.run.lock);
    agent_deallocate(signature);
}

/* The owner's stack as a wait on blocker begins, read at most once a millisecond in the whole
 * session, and not here: the probe queues the read for the owner reads' helper (park_owner_reads.h),
 * which reads any owner, platform or virtual, from outside the parking thread. */
static void sample_owner(JNIEnv *jni, jobject blocker, jthread owner) {
    jlong now = now_nanos();
    jlong last = __atomic_load_n(&parks.last_owner_sample, __ATOMIC_RELAXED);
    if (now - last < PARK_OWNER_SAMPLE_EVERY_NANOS
            || !__atomic_compare_exchange_n(&parks.last_owner_sample, &last, now, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
        return;
    }
    owner_reads_request(jni, blocker, owner);
}

/* On the owner reads' helper: keeps the owner's stack only when it still owns the blocker after the
 * read, so that the stack is where it holds the lock, not where it went once it let go. */
static void keep_owner_stack(JNIEnv *jni, jobject blocker, jthread owner, const jvmtiFrameInfo *frames, jint depth) {
    jvmtiEnv *jvmti = the_agent.jvmti;
    jobject still = (*jni)->GetObjectField(jni, blocker, refs.exclusive_owner);
    int owns = still != NULL && (*jni)->IsSameObject(jni, still, owner);
    if (still != NULL) (*jni)->DeleteLocalRef(jni, still);
    if (!owns) {
        __atomic_add_fetch(&parks.owner_samples_stale, 1, __ATOMIC_RELAXED);
        return;
    }
    int32_t owner_index = thread_index(jni, owner);
    jint hash = 0;
    char *signature = NULL;
    if (owner_index < 0 || blocker_identity(jni, blocker, &signature, &hash) != 0) {
        return;
    }
    blocker_kind kind = kind_of(jni, blocker);
    if ((*jvmti)->RawMonitorEnter(jvmti, parks.run.lock) == JVMTI_ERROR_NONE) {
        int32_t name = name_table_intern(&parks.names, signature);
        int32_t lock_index = -1;
        park_lock *lock = name < 0 ? NULL : find_lock(hash, name, kind, &lock_index);
        stack_entry *e = lock == NULL ? NULL : stack_table_find_or_add(&parks.owner_stacks, lock_index, owner_index, frames, depth);
        if (e != NULL) {
            e->count++;
        }
        (*jvmti)->RawMonitorExit(jvmti, parks.run.lock);
    }
    agent_deallocate(signature);
}

/* The entry of a park: the thread is in it from now until its exit probe (record_park). */
static void begin_park(JNIEnv *jni) {
    jvmtiEnv *jvmti = the_agent.jvmti;
    jthread self = NULL;
    if ((*jvmti)->GetCurrentThread(jvmti, &self) != JVMTI_ERROR_NONE || self == NULL) {
        __atomic_add_fetch(&parks.untracked, 1, __ATOMIC_RELAXED);
        return;
    }
    int32_t index = thread_index(jni, self);
    (*jni)->DeleteLocalRef(jni, self);
    if (index == PARK_AGENT_THREAD) {
        return;
    }
    if (index < 0) {
        __atomic_add_fetch(&parks.untracked, 1, __ATOMIC_RELAXED);
        return;
    }
    jlong now = now_nanos();
    if ((*jvmti)->RawMonitorEnter(jvmti, parks.run.lock) == JVMTI_ERROR_NONE) {
        __atomic_store_n(&parks.threads[index].parked_since, now, __ATOMIC_SEQ_CST);
        parks.threads[index].parked_in_session = 1;
        (*jvmti)->RawMonitorExit(jvmti, parks.run.lock);
    }
}

static jobject JNICALL probe_owner_of(JNIEnv *jni, jclass probe, jobject blocker) {
    (void)probe;
    jobject owner = NULL;
    if (!gate_enter(&parks.run.gate)) {
        return NULL;
    }
    begin_park(jni);
    if (blocker != NULL && refs.ownable != NULL && (*jni)->IsInstanceOf(jni, blocker, refs.ownable)) {
        owner = (*jni)->GetObjectField(jni, blocker, refs.exclusive_owner);
    }
    if (owner != NULL) {
        sample_owner(jni, blocker, owner);
    }
    gate_leave(&parks.run.gate);
    return owner;
}

static void JNICALL probe_parked(JNIEnv *jni, jclass probe, jobject blocker, jthread owner, jlong start) {
    (void)probe;
    jlong end = now_nanos();
    if (!gate_enter(&parks.run.gate)) {
        return;
    }
    if (start >= __atomic_load_n(&parks.since, __ATOMIC_RELAXED)) {
        record_park(jni, blocker, owner, end > start ? (uint64_t)(end - start) : 0);
    }
    gate_leave(&parks.run.gate);
}

static void JNICALL probe_pinned(JNIEnv *jni, jclass probe, jlong start) {
    (void)probe;
    jlong end = now_nanos();
    if (!gate_enter(&parks.run.gate)) {
        return;
    }
    if (start >= __atomic_load_n(&parks.since, __ATOMIC_RELAXED)) {
        jvmtiEnv *jvmti = the_agent.jvmti;
        pinned_episode episode;
        episode.nanos = end > start ? (uint64_t)(end - start) : 0;
        episode.thread = current_thread(jni, episode.frames, &episode.depth);
        if (episode.thread != PARK_AGENT_THREAD && (*jvmti)->RawMonitorEnter(jvmti, parks.run.lock) == JVMTI_ERROR_NONE) {
            parks.pinned_count++;
            parks.pinned_nanos += episode.nanos;
            parks.pinned_max = episode.nanos > parks.pinned_max ? episode.nanos : parks.pinned_max;
            if (parks.pinned_kept < PARK_MAX_PINNED) {
                parks.pinned[parks.pinned_kept++] = episode;
            }
            (*jvmti)->RawMonitorExit(jvmti, parks.run.lock);
        }
    }
    gate_leave(&parks.run.gate);
}

/* The classes the probes read, kept once found. 0, or -1 with ctx answered. */
static int find_refs(command_ctx *ctx) {
    JNIEnv *jni = ctx->jni;
    if (refs.ownable == NULL) {
        refs.ownable = jni_global_class(jni, "java/util/concurrent/locks/AbstractOwnableSynchronizer");
        refs.exclusive_owner = refs.ownable == NULL ? NULL
                : (*jni)->GetFieldID(jni, refs.ownable, "exclusiveOwnerThread", "Ljava/lang/Thread;");
        if (jni_failed(jni, refs.exclusive_owner)) {
            command_fail(ctx, "jni_error", "AbstractOwnableSynchronizer.exclusiveOwnerThread not found");
            return -1;
        }
        refs.acquire[0] = jni_global_class(jni, "java/util/concurrent/locks/AbstractQueuedSynchronizer");
        refs.acquire[1] = jni_global_class(jni, "java/util/concurrent/locks/AbstractQueuedLongSynchronizer");
        refs.acquire[2] = jni_global_class(jni, "java/util/concurrent/locks/StampedLock");
        refs.condition[0] = jni_global_class(jni, "java/util/concurrent/locks/AbstractQueuedSynchronizer$ConditionObject");
        refs.condition[1] = jni_global_class(jni, "java/util/concurrent/locks/AbstractQueuedLongSynchronizer$ConditionObject");
        refs.virtual_thread = jni_global_class(jni, "java/lang/VirtualThread");
    }
    if (refs.probe == NULL) {
        JNINativeMethod natives[] = {
            { "ownerOf", "(Ljava/lang/Object;)Ljava/lang/Thread;", (void *)probe_owner_of },
            { "parked", "(Ljava/lang/Object;Ljava/lang/Thread;J)V", (void *)probe_parked },
            { "pinned", "(J)V", (void *)probe_pinned },
        };
        refs.probe = probe_class_bind(ctx, PARK_PROBE_CLASS, "probe", PARK_MAX_PROBE_BYTES, natives, 3);
        if (refs.probe == NULL) {
            return -1;
        }
    }
    return 0;
}

/* One class to instrument, made to read the probe's module. 0, or -1 with ctx answered. */
static int add_class(command_ctx *ctx, jclass klass, const char *signature) {
    instrumented_class *c = &parks.classes[parks.class_count];
    c->klass = (*ctx->jni)->NewGlobalRef(ctx->jni, klass);
    c->signature = strdup(signature);
    parks.class_count++;
    if (c->klass == NULL || c->signature == NULL) {
        command_fail(ctx, "no_memory", "cannot keep the classes");
        return -1;
    }
    return probe_class_readable_from(ctx, refs.probe, klass);
}

static int find_classes(command_ctx *ctx) {
    jclass lock_support = jni_global_class(ctx->jni, "java/util/concurrent/locks/LockSupport");
    if (lock_support == NULL) {
        command_fail(ctx, "no_class", "java.util.concurrent.locks.LockSupport not found");
        return -1;
    }
    int failed = add_class(ctx, lock_support, "Ljava/util/concurrent/locks/LockSupport;");
    (*ctx->jni)->DeleteGlobalRef(ctx->jni, lock_support);
    if (failed == 0 && refs.virtual_thread != NULL) {
        failed = add_class(ctx, refs.virtual_thread, "Ljava/lang/VirtualThread;");
    }
    return failed;
}

static void free_tables(JNIEnv *jni) {
    instrument_free(jni, parks.classes, parks.class_count);
    parks.class_count = 0;
    stack_table_free(&parks.sites);
    stack_table_free(&parks.owner_stacks);
    name_table_free(&parks.names);
    big_block_unmap(parks.site_stats);
    parks.site_stats = NULL;
    free(parks.pinned);
    parks.pinned = NULL;
    free(parks.still);
    parks.still = NULL;
    free(parks.before);
    parks.before = NULL;
    for (size_t i = 0; jni != NULL && i < parks.thread_count; i++) {
        if (parks.threads[i].ref != NULL) {
            (*jni)->DeleteWeakGlobalRef(jni, parks.threads[i].ref);
            parks.threads[i].ref = NULL;
        }
    }
}

static int open_session(command_ctx *ctx) {
    parks.installed = 0;
    parks.lock_count = parks.thread_count = 0;
    parks.parks = parks.dropped = 0;
    parks.pinned_count = parks.pinned_nanos = parks.pinned_max = 0;
    parks.pinned_kept = 0;
    parks.last_owner_sample = 0;
    parks.owner_samples_stale = 0;
    parks.restore_failure = NULL;
    parks.restore_error = JVMTI_ERROR_NONE;
    parks.ended = 0;
    parks.still_kept = 0;
    parks.before_kept = 0;
    parks.before_dropped = 0;
    parks.before_virtual_unread = 0;
    parks.still_dropped = parks.still_unread = parks.untracked = 0;
    memset(parks.locks, 0, sizeof parks.locks);
    memset(parks.thread_slots, 0, sizeof parks.thread_slots);
    parks.site_stats = big_block_map(PARK_SITE_SLOTS * sizeof *parks.site_stats);
    parks.pinned = malloc(PARK_MAX_PINNED * sizeof *parks.pinned);
    parks.still = malloc(PARK_MAX_STILL * sizeof *parks.still);
    parks.before = malloc(PARK_MAX_BEFORE * sizeof *parks.before);
    if (parks.site_stats == NULL || parks.pinned == NULL || parks.still == NULL || parks.before == NULL || stack_table_init(&parks.sites, PARK_SITE_SLOTS) != 0
            || parks.sites.capacity != PARK_SITE_SLOTS || stack_table_init(&parks.owner_stacks, PARK_OWNER_STACK_SLOTS) != 0
            || name_table_init(&parks.names, PARK_MAX_NAMES, PARK_NAME_ARENA) != 0) {
        free_tables(ctx->jni);
        command_fail(ctx, "no_memory", "cannot allocate the park tables");
        return -1;
    }
    for (int i = 0; i < PARK_SITE_SLOTS; i++) {
        latency_reset(&parks.site_stats[i].waits);
    }
    if (find_refs(ctx) != 0 || find_classes(ctx) != 0) {
        free_tables(ctx->jni);
        return -1;
    }
    const char *failure = NULL;
    if (owner_reads_open(ctx->jni, keep_owner_stack, &failure) != 0) {
        free_tables(ctx->jni);
        command_fail(ctx, "internal", failure);
        return -1;
    }
    parks.since = now_nanos(); /* until the install, which begins the window again */
    return 0;
}

static int armed(command_ctx *ctx) {
    const char *what = NULL;
    if (instrument_refuse_taken(ctx, parks.classes, parks.class_count)) {
        return -1;
    }
    jvmtiError err = instrument_read(parks.classes, parks.class_count, "contention's park probes", &what);
    if (err != JVMTI_ERROR_NONE) {
        command_fail_jvmti(ctx, what, err);
        return -1;
    }
    return 0;
}

/* The frames of a parked thread from its innermost LockSupport frame down, as a site has them (the
 * exit probe's stack below its own frame); 0 when no frame is LockSupport's. */
static jint from_lock_support(JNIEnv *jni, jvmtiFrameInfo *frames, jint depth) {
    jvmtiEnv *jvmti = the_agent.jvmti;
    jclass lock_support = parks.classes[0].klass;
    for (jint i = 0; i < depth; i++) {
        jclass declaring = NULL;
        if ((*jvmti)->GetMethodDeclaringClass(jvmti, frames[i].method, &declaring) != JVMTI_ERROR_NONE) {
            continue;
        }
        int found = (*jni)->IsSameObject(jni, declaring, lock_support);
        (*jni)->DeleteLocalRef(jni, declaring);
        if (found) {
            memmove(frames, frames + i, (size_t)(depth - i) * sizeof *frames);
            return depth - i;
        }
    }
    return 0;
}

/* Reads where a parked thread parks, as one moment: its stack (from its LockSupport frame down) and
 * its blocker with the blocker's exclusive owner, kept only when parked() still says the same
 * after them. 1 when *p was filled in (but thread and waited_nanos), 0 when the thread moved. */
static int read_parked(JNIEnv *jni, jthread self, int (*parked)(JNIEnv *, jthread, int32_t, jlong), int32_t index, jlong since,
                       still_park *p) {
    jvmtiEnv *jvmti = the_agent.jvmti;
    jobject blocker = NULL;
    jthread owner = NULL;
    int read = (*jvmti)->GetStackTrace(jvmti, self, 0, STACK_MAX_FRAMES, p->frames, &p->depth) == JVMTI_ERROR_NONE;
    if (read) {
        blocker = locks_read_park_blocker(jni, self);
        read = parked(jni, self, index, since) && (p->depth = from_lock_support(jni, p->frames, p->depth)) > 0;
    }
    if (read && blocker != NULL && refs.ownable != NULL && (*jni)->IsInstanceOf(jni, blocker, refs.ownable)) {
        owner = (*jni)->GetObjectField(jni, blocker, refs.exclusive_owner);
    }
    int32_t owner_index = owner == NULL ? -1 : thread_index(jni, owner);
    jint hash = 0;
    char *signature = NULL;
    if (read && blocker != NULL) {
        read = blocker_identity(jni, blocker, &signature, &hash) == 0;
    }
    blocker_kind kind = read && blocker != NULL ? kind_of(jni, blocker) : KIND_PARK;
    p->lock = -1;
    if (read && (*jvmti)->RawMonitorEnter(jvmti, parks.run.lock) == JVMTI_ERROR_NONE) {
        int32_t name = blocker == NULL ? NO_BLOCKER : name_table_intern(&parks.names, signature);
        if (name != -1) {
            (void)find_lock(hash, name, kind, &p->lock);
        }
        (*jvmti)->RawMonitorExit(jvmti, parks.run.lock);
    }
    p->owner = owner_index < 0 ? -1 : owner_index;
    agent_deallocate(signature);
    if (owner != NULL) (*jni)->DeleteLocalRef(jni, owner);
    if (blocker != NULL) (*jni)->DeleteLocalRef(jni, blocker);
    return read && p->lock >= 0;
}

/* Whether the thread is still in the park its entry probe marked at since. */
static int still_in_park(JNIEnv *jni, jthread self, int32_t index, jlong since) {
    (void)jni;
    (void)self;
    return __atomic_load_n(&parks.threads[index].parked_since, __ATOMIC_SEQ_CST) == since;
}

/* Whether the thread is parked (JVMTI's state). */
static int is_parked(jthread thread) {
    jint state = 0;
    return (*the_agent.jvmti)->GetThreadState(the_agent.jvmti, thread, &state) == JVMTI_ERROR_NONE && (state & JVMTI_THREAD_STATE_PARKED);
}

static int parked_now(JNIEnv *jni, jthread self, int32_t index, jlong since) {
    (void)jni;
    (void)index;
    (void)since;
    return is_parked(self);
}

/* Reads one park in progress at the window's end. */
static void read_still_park(JNIEnv *jni, int32_t thread, jlong since, jlong until) {
    still_park *p = &parks.still[parks.still_kept];
    jthread self = parks.threads[thread].ref == NULL ? NULL : (*jni)->NewLocalRef(jni, parks.threads[thread].ref);
    if (self != NULL && read_parked(jni, self, still_in_park, thread, since, p)) {
        p->thread = thread;
        p->waited_nanos = (uint64_t)(until - since);
        parks.still_kept++;
    } else {
        parks.still_unread++;
    }
    if (self != NULL) (*jni)->DeleteLocalRef(jni, self);
}

/* Keeps the thread parked at the window's end, read as one moment (the agent's own never); which
 * of them began no park in the window is told at the report, once the probes are out. */
static void keep_parked(JNIEnv *jni, jthread thread) {
    int32_t index = thread_index(jni, thread);
    if (index < 0) {
        return;
    }
    if (parks.before_kept == PARK_MAX_BEFORE) {
        parks.before_dropped++;
    } else if (read_parked(jni, thread, parked_now, index, 0, &parks.before[parks.before_kept])) {
        parks.before[parks.before_kept].thread = index;
        parks.before[parks.before_kept++].waited_nanos = 0;
    }
}

static void read_parked_platform_threads(JNIEnv *jni) {
    jvmtiEnv *jvmti = the_agent.jvmti;
    jthread *all = NULL;
    jint count = 0;
    if ((*jvmti)->GetAllThreads(jvmti, &count, &all) != JVMTI_ERROR_NONE) {
        return;
    }
    jni_reserve_locals(jni, count);
    for (jint i = 0; i < count; i++) {
        if (is_parked(all[i])) {
            keep_parked(jni, all[i]);
        }
        (*jni)->DeleteLocalRef(jni, all[i]);
    }
    (*jvmti)->Deallocate(jvmti, (unsigned char *)all);
}

static int visit_virtual_thread(void *context, jthread thread) {
    JNIEnv *jni = context;
    if (is_parked(thread)) { /* one pinned to its carrier too: the carrier itself is not parked (JVMTI: waiting) */
        keep_parked(jni, thread);
    }
    return 0;
}

/* The virtual threads (JDK 21+), found by the walk of the JDK's thread containers. */
static void read_parked_virtual_threads(JNIEnv *jni) {
    const virtual_thread_layout *layout = NULL;
    if (refs.virtual_thread == NULL || !capabilities_has_virtual_threads(&the_agent.held) || virtual_threads_prepare(jni, &layout) != NULL) {
        return;
    }
    jobject root = virtual_threads_root(jni);
    if (root == NULL) {
        parks.before_virtual_unread = 1;
        return;
    }
    virtual_thread_visitor visitor = { visit_virtual_thread, NULL, NULL, jni, 0, 0 };
    parks.before_virtual_unread = virtual_threads_walk(jni, root, &visitor) != 0;
    (*jni)->DeleteLocalRef(jni, root);
}

/* Reads the threads parked at the window's end, platform and virtual. */
static void read_parked_threads(JNIEnv *jni) {
    read_parked_platform_threads(jni);
    read_parked_virtual_threads(jni);
}

/* The window's end, the probes still in: from now no park is counted, and every park in progress
 * is still waiting (those of threads past PARK_MAX_STILL are only counted). Each is read while the
 * probes still keep parked_since, so that a park that ends meanwhile is told apart. */
static void end_window(JNIEnv *jni) {
    jvmtiEnv *jvmti = the_agent.jvmti;
    int32_t *threads = malloc(PARK_MAX_THREADS * sizeof *threads);
    jlong *since = malloc(PARK_MAX_THREADS * sizeof *since);
    size_t count = 0;
    if ((*jvmti)->RawMonitorEnter(jvmti, parks.run.lock) != JVMTI_ERROR_NONE) {
        free(threads);
        free(since);
        return;
    }
    parks.until = now_nanos();
    parks.ended = 1;
    for (size_t i = 0; threads != NULL && since != NULL && i < parks.thread_count; i++) {
        if (parks.threads[i].parked_since != 0 && !parks.threads[i].is_agent) {
            threads[count] = (int32_t)i;
            since[count++] = parks.threads[i].parked_since;
        }
    }
    (*jvmti)->RawMonitorExit(jvmti, parks.run.lock);
    for (size_t i = 0; i < count; i++) {
        if (parks.still_kept == PARK_MAX_STILL) {
            parks.still_dropped++;
        } else {
            read_still_park(jni, threads[i], since[i], parks.until);
        }
    }
    free(threads);
    free(since);
    read_parked_threads(jni);
}

static void quiesce(JNIEnv *jni) {
    if (!parks.ended) {
        parks.until = now_nanos();
    }
    owner_reads_quiesce(jni);
    if (parks.installed && jni != NULL) {
        parks.restore_error = instrument_restore(parks.classes, parks.class_count, &parks.restore_failure);
        parks.installed = parks.restore_error != JVMTI_ERROR_NONE;
    }
}

static int close_session(void) {
    if (parks.installed) {
        return -1; /* still in the JVM's classes: the probes may run; the session stays taken */
    }
    if (owner_reads_close() != 0) {
        return -1; /* the owner reads' helper did not stop: the tables it writes must outlive it */
    }
    free_tables(events_jni());
    return 0;
}

static void write_started(json_writer *w) {
    json_begin_object(w);
    instrument_write_originals(w, parks.classes, parks.class_count);
    json_end_object(w);
}

static void write_name(json_writer *w, int32_t index) {
    const char *name = name_table_get(&parks.names, index);
    if (name == NULL) {
        json_null(w);
    } else {
        json_mutf8(w, name);
    }
}

/* "thread" (its name), "threadId" and "virtual" of a thread index; null when not known. */
static void write_thread(json_writer *w, int32_t index) {
    const park_thread *t = index >= 0 && (size_t)index < parks.thread_count ? &parks.threads[index] : NULL;
    json_key(w, "thread");
    write_name(w, t == NULL ? -1 : t->name);
    if (t == NULL) {
        json_field_null(w, "threadId");
        json_field_null(w, "virtual");
    } else {
        json_field_int(w, "threadId", t->id);
        json_field_bool(w, "virtual", t->is_virtual);
    }
}

static void write_tallies(json_writer *w, const char *key, const tally *t, int slots) {
    json_begin_array_field(w, key);
    for (int i = 0; i < slots && t[i].count > 0; i++) {
        json_begin_object(w);
        write_thread(w, t[i].thread);
        json_field_int(w, "count", (int64_t)t[i].count);
        json_end_object(w);
    }
    json_end_array(w);
}

static void write_locks(json_writer *w) {
    json_begin_array_field(w, "locks");
    for (size_t i = 0; i < PARK_MAX_LOCKS; i++) {
        const park_lock *l = &parks.locks[i];
        if (!l->used) {
            continue;
        }
        json_begin_object(w);
        json_field_int(w, "id", (int64_t)i);
        json_key(w, "class"); /* null: the parks without a blocker, one entry for all of them */
        write_name(w, l->klass);
        json_field_int(w, "identityHash", (uint32_t)l->hash);
        json_field_cstring(w, "kind", KIND_NAMES[l->kind]);
        json_field_int(w, "count", (int64_t)l->count);
        json_field_int(w, "totalNanos", (int64_t)l->total_nanos);
        json_field_int(w, "maxNanos", (int64_t)l->max_nanos);
        json_end_object(w);
    }
    json_end_array(w);
}

static void write_sites(json_writer *w, method_table *methods) {
    json_begin_array_field(w, "sites");
    for (size_t i = 0; methods != NULL && i < parks.sites.capacity; i++) {
        const stack_entry *e = &parks.sites.slots[i];
        const site_stats *s = &parks.site_stats[i];
        if (e->hash == 0) {
            continue;
        }
        json_begin_object(w);
        json_field_int(w, "lock", e->key);
        json_field_int(w, "count", (int64_t)e->count);
        json_field_int(w, "totalNanos", (int64_t)e->sum);
        latency_write_json(w, &s->waits);
        write_tallies(w, "waiters", s->waiters, PARK_SITE_WAITERS);
        json_field_int(w, "otherWaiters", (int64_t)s->other_waiters);
        write_tallies(w, "owners", s->owners, PARK_SITE_OWNERS);
        json_field_int(w, "otherOwners", (int64_t)s->other_owners);
        json_field_int(w, "noOwner", (int64_t)s->no_owner);
        json_key(w, "frames");
        method_table_write_frames(methods, w, e->frames, e->depth);
        json_end_object(w);
    }
    json_end_array(w);
}

static void write_pinned(json_writer *w, method_table *methods) {
    json_begin_object_field(w, "pinned");
    json_field_bool(w, "watched", parks.class_count > 1);
    json_field_int(w, "count", (int64_t)parks.pinned_count);
    json_field_int(w, "totalNanos", (int64_t)parks.pinned_nanos);
    json_field_int(w, "maxNanos", (int64_t)parks.pinned_max);
    json_begin_array_field(w, "episodes");
    for (int i = 0; methods != NULL && i < parks.pinned_kept; i++) {
        json_begin_object(w);
        write_thread(w, parks.pinned[i].thread);
        json_field_int(w, "nanos", (int64_t)parks.pinned[i].nanos);
        json_key(w, "frames");
        method_table_write_frames(methods, w, parks.pinned[i].frames, parks.pinned[i].depth);
        json_end_object(w);
    }
    json_end_array(w);
    json_end_object(w);
}

static void write_owner_stacks(json_writer *w, method_table *methods) {
    json_field_int(w, "ownerSamplesStale", (int64_t)__atomic_load_n(&parks.owner_samples_stale, __ATOMIC_RELAXED));
    json_field_int(w, "ownerReadsDropped", (int64_t)owner_reads_dropped());
    json_begin_array_field(w, "ownerStacks");
    for (size_t i = 0; methods != NULL && i < parks.owner_stacks.capacity; i++) {
        const stack_entry *e = &parks.owner_stacks.slots[i];
        if (e->hash == 0) {
            continue;
        }
        json_begin_object(w);
        json_field_int(w, "lock", e->key);
        write_thread(w, e->aux);
        json_field_int(w, "count", (int64_t)e->count);
        json_key(w, "frames");
        method_table_write_frames(methods, w, e->frames, e->depth);
        json_end_object(w);
    }
    json_end_array(w);
}

/* "owner": the thread, or null. */
static void write_owner(json_writer *w, int32_t owner) {
    json_key(w, "owner");
    if (owner < 0) {
        json_null(w);
    } else {
        json_begin_object(w);
        write_thread(w, owner);
        json_end_object(w);
    }
}

static void write_still_waiting(json_writer *w, method_table *methods) {
    json_field_int(w, "stillWaitingDropped", (int64_t)parks.still_dropped);
    json_field_int(w, "stillWaitingUnread", (int64_t)parks.still_unread);
    json_field_int(w, "untracked", (int64_t)__atomic_load_n(&parks.untracked, __ATOMIC_RELAXED));
    json_begin_array_field(w, "stillWaiting");
    for (int i = 0; methods != NULL && i < parks.still_kept; i++) {
        const still_park *p = &parks.still[i];
        json_begin_object(w);
        json_field_int(w, "lock", p->lock);
        write_thread(w, p->thread);
        json_field_int(w, "waitedNanos", (int64_t)p->waited_nanos);
        write_owner(w, p->owner);
        json_key(w, "frames");
        method_table_write_frames(methods, w, p->frames, p->depth);
        json_end_object(w);
    }
    json_end_array(w);
}

/* The threads read parked at the window's end that began no park since the probes went in. */
static void write_parked_before(json_writer *w, method_table *methods) {
    json_field_int(w, "parkedBeforeDropped", (int64_t)parks.before_dropped);
    if (parks.before_virtual_unread) {
        json_field_cstring(w, "parkedBeforeIncomplete", "the JDK's thread containers could not be walked: virtual threads may be missing");
    }
    json_begin_array_field(w, "parkedBefore");
    for (int i = 0; methods != NULL && i < parks.before_kept; i++) {
        const still_park *p = &parks.before[i];
        if (parks.threads[p->thread].parked_in_session) {
            continue;
        }
        json_begin_object(w);
        json_field_int(w, "lock", p->lock);
        write_thread(w, p->thread);
        write_owner(w, p->owner);
        json_key(w, "frames");
        method_table_write_frames(methods, w, p->frames, p->depth);
        json_end_object(w);
    }
    json_end_array(w);
}

static void write_report(command_ctx *ctx, jlong elapsed, int64_t gcs) {
    (void)gcs;
    json_writer *w = ctx->out;
    method_table methods;
    int have_methods = method_table_init(&methods, (parks.sites.used + parks.owner_stacks.used + (size_t)parks.pinned_kept
            + (size_t)parks.still_kept + (size_t)parks.before_kept) * STACK_MAX_FRAMES
            + 16) == 0;
    methods.with_origin = 1;
    command_result(ctx);
    json_begin_object(w);
    json_field_int(w, "durationNanos", elapsed);
    json_field_int(w, "sinceNanos", parks.since); /* CLOCK_MONOTONIC, as System.nanoTime on Linux */
    json_field_int(w, "untilNanos", parks.until);
    json_field_int(w, "parks", (int64_t)parks.parks);
    json_field_int(w, "dropped", (int64_t)parks.dropped);
    if (parks.restore_failure != NULL && parks.restore_error != JVMTI_ERROR_NONE) {
        json_field_cstring(w, "restoreFailure", parks.restore_failure);
    }
    instrument_write_outcome(w, parks.classes, parks.class_count);
    write_locks(w);
    write_sites(w, have_methods ? &methods : NULL);
    write_pinned(w, have_methods ? &methods : NULL);
    write_owner_stacks(w, have_methods ? &methods : NULL);
    write_still_waiting(w, have_methods ? &methods : NULL);
    write_parked_before(w, have_methods ? &methods : NULL);
    json_key(w, "methods");
    method_table_finish(have_methods ? &methods : NULL, ctx->jni, w);
    json_end_object(w);
}

static const session_engine engine = {
    .what = "park recording",
    .lock_name = "jvmti-cli parks",
    INSTRUMENT_ENGINE,
    .open = open_session,
    .armed = armed,
    .window_end = end_window,
    .quiesce = quiesce,
    .started = write_started,
    .report = write_report,
    .close = close_session,
    .state = &parks.run,
};

void cmd_parks_start(command_ctx *ctx) {
    session_start(&engine, ctx);
}

void cmd_parks_stop(command_ctx *ctx) {
    session_stop(&engine, ctx);
}

static int before_install(command_ctx *ctx) {
    return instrument_before_install(ctx, &parks.run, parks.installed, "this client has no park recording session");
}

void cmd_parks_bytes(command_ctx *ctx) {
    if (before_install(ctx)) {
        instrument_receive_bytes(ctx, parks.classes, parks.class_count);
    }
}

/* Installs every class's new bytes at once; a refusal ends the session. */
void cmd_parks_install(command_ctx *ctx) {
    if (!before_install(ctx)) {
        return;
    }
    const char *what = NULL;
    /* The window begins as the probes go in: a park that began before ran the old code, which has none,
     * and one that began since is counted. */
    __atomic_store_n(&parks.since, now_nanos(), __ATOMIC_RELAXED);
    jvmtiError err = instrument_install(parks.classes, parks.class_count, &what);
    if (err != JVMTI_ERROR_NONE) {
        instrument_refused(ctx, &engine, err, what);
        return;
    }
    parks.installed = 1;
    command_result(ctx);
    json_begin_object(ctx->out);
    json_field_int(ctx->out, "classes", parks.class_count);
    json_end_object(ctx->out);
}
