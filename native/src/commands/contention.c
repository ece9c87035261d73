/* `contention.start` / `contention.stop`: lock-contention profiling with MonitorContendedEnter
 * and MonitorContendedEntered, a session engine (session.h).
 *
 * The enter callback, on the thread about to block, records the monitor (class signature and
 * identity hash), the thread (name, Java id, virtual or not: looked up once per thread and
 * session) and its stack, and the start time; the entered callback adds the blocked time. Both
 * events are posted with the thread that waits as the current thread, a virtual thread too: on
 * JDK 24+ one blocked on a monitor unmounts (JEP 491), its carrier runs other virtual threads
 * meanwhile, and the entered event comes on whichever carrier mounts it again. So what a wait
 * needs between the two events is kept in the JVMTI thread-local storage of the thread that
 * waits (per virtual thread, not per carrier), never in the OS thread's.
 *
 * Who held the monitor is NOT looked up in the callback: GetObjectMonitorUsage is a VM operation
 * (a safepoint) in HotSpot, too heavy for a callback. Instead the callback queues a global ref of
 * the monitor (a few per monitor, in a small fixed queue) for a helper agent thread, which asks
 * for the owner while the contender is still blocked behind it. GetObjectMonitorUsage names no
 * owner for a virtual thread that owns the monitor unmounted (JDK 24+): the helper then asks a
 * ThreadSnapshot (JDK 25+) of the thread that last entered the monitor after waiting whether it
 * owns it still, and counts it only then. Names and lines are resolved at stop. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent.h"
#include "aggregate.h"
#include "answer.h"
#include "capabilities.h"
#include "jni_util.h"
#include "lock_facts.h"
#include "method_table.h"
#include "locks.h"
#include "own_threads.h"
#include "session.h"
#include "thread_facts.h"
#include "thread_moment.h"
#include "thread_snapshot.h"
#include "virtual_threads.h"

#define CONT_STACK_SLOTS 2048
#define CONT_MAX_MONITORS 1024
#define CONT_MAX_NAMES 2048
#define CONT_NAME_ARENA (256 * 1024)
#define CONT_MAX_HOLDERS 4
#define CONT_HOLDERS_SEEN_PER_MONITOR 8
#define CONT_LOOKUPS_PER_MONITOR 64     /* most find no owner they can name when the lock is free */
#define CONT_QUEUE 32
#define CONT_MAX_THREADS 8192   /* threads that entered a contended monitor, in one session */
#define CONT_MAX_WAITS 4096     /* contended enters not yet entered, at once */
#define CONT_MAX_BLOCKED_BEFORE 1024 /* threads blocked since before the window, read at its end */
#define CONT_MAX_VIRTUAL_BLOCKED 256 /* of them virtual: each is read with every platform thread (owner candidates) */
#define CONT_OWNED_DEPTH 256         /* frames looked at for the monitors a candidate owner holds */

/* A thread's JVMTI thread-local storage holds, in one pointer-sized word: the session generation
 * (high 32 bits), its thread index + 1 (bits 16-31) and its pending wait's slot + 1 (bits 0-15). */
_Static_assert(sizeof(void *) >= 8, "the thread-local word needs 64 bits");
_Static_assert(CONT_MAX_THREADS < 0xffff && CONT_MAX_WAITS < 0xffff, "indexes fit 16 bits");
/* The agent's own threads (its server thread, the helper) are marked, so their waits are never
 * reported as the target's. */
#define CONT_AGENT_THREAD UINTPTR_MAX

typedef struct {
    int32_t name;       /* name index, -1 when not known */
    jlong id;           /* Thread.tid */
    int is_virtual;
    jweak ref;          /* for the helper, which asks whether it holds a monitor */
    int contended;      /* an enter event of its came, also after the window's end */
} thread_entry;

typedef struct {
    int32_t thread;     /* thread index */
    uint64_t seen;
} holder;

typedef struct {
    int used;
    jint hash;              /* identity hash */
    int32_t klass;          /* name index of the class signature */
    uint64_t count;
    uint64_t blocked_nanos;
    int lookups;            /* owner lookups queued */
    int holders_seen;       /* lookups that named a holder */
    int32_t last_entered;   /* thread index of the last thread that entered it after waiting, or -1 */
    holder holders[CONT_MAX_HOLDERS];
    uint64_t other_holders;
} monitor_entry;

/* A contended enter whose entered event has not come yet. */
typedef struct {
    stack_entry *stack;
    int32_t monitor;
    jlong since;
} wait_entry;

/* A contended enter still waiting at the window's end: its time so far is that of the window. */
typedef struct {
    stack_entry *stack;
    int32_t monitor;
    uint64_t waited_nanos;
} still_waiting;

/* A thread blocked entering a monitor when the window ended, with no enter event of its
 * in the window: it was blocked when the window began, since a moment not known. */
typedef struct {
    jlong id;
    int32_t name;           /* name index, -1 when not known */
    int32_t klass;          /* name index of the monitor's Java class name, -1 when not known */
    jint hash;
    jlong owner_id;         /* -1 when it has none or it is not known */
    int32_t owner_name;     /* name index, -1 when not known */
    int owner_unknown;
    int is_virtual;
} blocked_before;

typedef struct {
    jobject monitor;        /* global ref */
    int32_t index;          /* monitor_entry */
    int32_t contender;      /* thread index */
} lookup;

static struct {
    session_state run;
    int generation;
    stack_table stacks;
    name_table names;       /* thread names and class signatures */
    monitor_entry monitors[CONT_MAX_MONITORS];
    size_t monitor_count;
    thread_entry threads[CONT_MAX_THREADS];
    size_t thread_count;
    wait_entry waits[CONT_MAX_WAITS];
    int32_t free_waits[CONT_MAX_WAITS];
    size_t free_wait_count;
    uint64_t events;
    uint64_t dropped;
    lookup queue[CONT_QUEUE];
    int queue_len;
    int helper_run;
    int helper_done;
    jthread helper;
    jclass virtual_thread; /* java.lang.VirtualThread, NULL before JDK 21 */
    int snapshots;          /* ThreadSnapshot can tell an unmounted owner (JDK 25+) */
    int ended;              /* the window's end has come: no wait begins or ends any more */
    jlong until;
    still_waiting still[CONT_MAX_WAITS];
    size_t still_count;
    uint64_t untracked_contenders; /* enters of threads past the thread table: blocked_before cannot be told */
    blocked_before before[CONT_MAX_BLOCKED_BEFORE];
    size_t before_count;
    uint64_t before_dropped;        /* past CONT_MAX_BLOCKED_BEFORE */
    const char *before_not_read;    /* why the threads blocked since before were not read, or NULL */
    const char *virtual_before_not_read; /* why the virtual ones were not, or NULL */
} session;

typedef struct {
    int generation;
    int32_t thread;     /* -1: none */
    int32_t wait;       /* -1: none */
} thread_word;

static thread_word read_word(jvmtiEnv *jvmti, int generation, int *agent_thread) {
    void *stored = NULL;
    thread_word w = { generation, -1, -1 };
    *agent_thread = 0;
    if ((*jvmti)->GetThreadLocalStorage(jvmti, NULL, &stored) != JVMTI_ERROR_NONE) {
        return w;
    }
    uintptr_t bits = (uintptr_t)stored;
    if (bits == CONT_AGENT_THREAD) {
        *agent_thread = 1;
    } else if ((int)(uint32_t)(bits >> 32) == generation) {
        w.thread = (int32_t)((bits >> 16) & 0xffff) - 1;
        w.wait = (int32_t)(bits & 0xffff) - 1;
    }
    return w;
}

/* Returns 0, or -1 when the thread's storage could not be set (the word is then not kept). */
static int write_word(jvmtiEnv *jvmti, thread_word w) {
    uintptr_t bits = ((uintptr_t)(uint32_t)w.generation << 32) | ((uintptr_t)(w.thread + 1) << 16) | (uintptr_t)(w.wait + 1);
    return (*jvmti)->SetThreadLocalStorage(jvmti, NULL, (const void *)bits) == JVMTI_ERROR_NONE ? 0 : -1;
}

static void mark_agent_thread(jvmtiEnv *jvmti) {
    (*jvmti)->SetThreadLocalStorage(jvmti, NULL, (const void *)CONT_AGENT_THREAD);
}

static monitor_entry *find_monitor(jint hash, int32_t klass, int32_t *index) {
    size_t mask = CONT_MAX_MONITORS - 1;
    for (size_t i = ((uint32_t)hash * 2654435761u) & mask, probes = 0; probes < CONT_MAX_MONITORS; i = (i + 1) & mask, probes++) {
        monitor_entry *m = &session.monitors[i];
        if (m->used && m->hash == hash && m->klass == klass) {
            *index = (int32_t)i;
            return m;
        }
        if (!m->used) {
            if (session.monitor_count * 4 >= CONT_MAX_MONITORS * 3) {
                return NULL;
            }
            m->used = 1;
            m->hash = hash;
            m->klass = klass;
            m->last_entered = -1;
            session.monitor_count++;
            *index = (int32_t)i;
            return m;
        }
    }
    return NULL;
}

static char *thread_name(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread) {
    jvmtiThreadInfo info;
    memset(&info, 0, sizeof info);
    if ((*jvmti)->GetThreadInfo(jvmti, thread, &info) != JVMTI_ERROR_NONE) {
        return NULL;
    }
    if (info.thread_group != NULL) (*jni)->DeleteLocalRef(jni, info.thread_group);
    if (info.context_class_loader != NULL) (*jni)->DeleteLocalRef(jni, info.context_class_loader);
    return info.name;
}

static char *class_signature(jvmtiEnv *jvmti, JNIEnv *jni, jobject object) {
    char *signature = NULL;
    jclass klass = (*jni)->GetObjectClass(jni, object);
    if (klass == NULL) {
        return NULL;
    }
    if ((*jvmti)->GetClassSignature(jvmti, klass, &signature, NULL) != JVMTI_ERROR_NONE) {
        signature = NULL;
    }
    (*jni)->DeleteLocalRef(jni, klass);
    return signature;
}

/* What names a thread in the report, read outside the session's lock. */
typedef struct {
    char *name;         /* JVMTI-allocated, or NULL */
    jlong id;
    int is_virtual;
    jweak ref;          /* NULL when none could be made */
} thread_identity;

static thread_identity identify(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread) {
    thread_identity t = { thread_name(jvmti, jni, thread), thread_java_id(jni, thread), 0, NULL };
    t.is_virtual = session.virtual_thread != NULL && (*jni)->IsInstanceOf(jni, thread, session.virtual_thread);
    t.ref = (*jni)->NewWeakGlobalRef(jni, thread);
    if (t.ref == NULL) {
        jni_cleared_exception(jni);
    }
    return t;
}

/* Frees what identify made and add_thread did not keep. */
static void forget_identity(jvmtiEnv *jvmti, JNIEnv *jni, thread_identity *t) {
    if (t->name != NULL) (*jvmti)->Deallocate(jvmti, (unsigned char *)t->name);
    if (t->ref != NULL) (*jni)->DeleteWeakGlobalRef(jni, t->ref);
    t->name = NULL;
    t->ref = NULL;
}

/* Under the lock: a new thread entry keeping t's weak reference; -1 when the table is full. */
static int32_t add_thread(thread_identity *t) {
    if (session.thread_count == CONT_MAX_THREADS) {
        return -1;
    }
    thread_entry *e = &session.threads[session.thread_count];
    e->name = t->name == NULL ? -1 : name_table_intern(&session.names, t->name);
    e->id = t->id;
    e->is_virtual = t->is_virtual;
    e->ref = t->ref;
    t->ref = NULL;
    return (int32_t)session.thread_count++;
}

static void JNICALL on_enter(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jobject object) {
    if (!gate_enter(&session.run.gate)) {
        return;
    }
    int generation = __atomic_load_n(&session.generation, __ATOMIC_SEQ_CST);
    int agent_thread = 0;
    thread_word word = read_word(jvmti, generation, &agent_thread);
    if (agent_thread) {
        gate_leave(&session.run.gate);
        return;
    }
    jvmtiFrameInfo frames[STACK_MAX_FRAMES];
    jint depth = 0;
    jint hash = 0;
    thread_identity who = { NULL, -1, 0, NULL };
    char *signature = class_signature(jvmti, jni, object);
    if (word.thread < 0) {
        who = identify(jvmti, jni, thread);
    }
    if ((*jvmti)->GetStackTrace(jvmti, NULL, 0, STACK_MAX_FRAMES, frames, &depth) != JVMTI_ERROR_NONE) {
        depth = 0;
    }
    if ((*jvmti)->GetObjectHashCode(jvmti, object, &hash) != JVMTI_ERROR_NONE) {
        hash = 0;
    }
    if ((*jvmti)->RawMonitorEnter(jvmti, session.run.lock) == JVMTI_ERROR_NONE) {
        if (word.thread < 0) {
            word.thread = add_thread(&who);
        }
        if (word.thread >= 0) {
            session.threads[word.thread].contended = 1;
        } else {
            session.untracked_contenders++;
        }
        if (word.wait >= 0) { /* an enter whose entered event never came: its slot is free again */
            session.waits[word.wait].stack = NULL;
            session.free_waits[session.free_wait_count++] = word.wait;
            word.wait = -1;
        }
        int32_t klass = signature == NULL || session.ended ? -1 : name_table_intern(&session.names, signature);
        int32_t index = -1;
        monitor_entry *m = klass < 0 ? NULL : find_monitor(hash, klass, &index);
        stack_entry *e = m == NULL || session.free_wait_count == 0 ? NULL
                : stack_table_find_or_add(&session.stacks, index, word.thread, frames, depth);
        if (session.ended) {
            /* after the window: only that the thread contended is kept (blocked_before) */
        } else if (e == NULL) {
            session.events++;
            session.dropped++;
        } else {
            session.events++;
            m->count++;
            e->count++;
            word.wait = session.free_waits[--session.free_wait_count];
            session.waits[word.wait] = (wait_entry){ e, index, events_now_nanos() };
            if (m->holders_seen < CONT_HOLDERS_SEEN_PER_MONITOR && m->lookups < CONT_LOOKUPS_PER_MONITOR
                    && session.queue_len < CONT_QUEUE) {
                jobject ref = (*jni)->NewGlobalRef(jni, object);
                if (ref != NULL) {
                    m->lookups++;
                    session.queue[session.queue_len++] = (lookup){ ref, index, word.thread };
                    (*jvmti)->RawMonitorNotifyAll(jvmti, session.run.lock);
                }
            }
        }
        if (write_word(jvmti, word) != 0 && word.wait >= 0) { /* its entered event could not find the slot: take it back */
            wait_entry *taken = &session.waits[word.wait];
            taken->stack->count--;
            session.monitors[taken->monitor].count--;
            taken->stack = NULL;
            session.free_waits[session.free_wait_count++] = word.wait;
            session.dropped++;
        }
        (*jvmti)->RawMonitorExit(jvmti, session.run.lock);
    }
    forget_identity(jvmti, jni, &who);
    if (signature != NULL) (*jvmti)->Deallocate(jvmti, (unsigned char *)signature);
    gate_leave(&session.run.gate);
}

static void JNICALL on_entered(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jobject object) {
    (void)jni;
    (void)thread;
    (void)object;
    if (!gate_enter(&session.run.gate)) {
        return;
    }
    int generation = __atomic_load_n(&session.generation, __ATOMIC_SEQ_CST);
    int agent_thread = 0;
    thread_word word = read_word(jvmti, generation, &agent_thread);
    if (word.wait >= 0) {
        jlong now = events_now_nanos();
        if ((*jvmti)->RawMonitorEnter(jvmti, session.run.lock) == JVMTI_ERROR_NONE) {
            if (session.ended) { /* still waiting at the window's end: end_window took it */
                (*jvmti)->RawMonitorExit(jvmti, session.run.lock);
                gate_leave(&session.run.gate);
                return;
            }
            wait_entry *w = &session.waits[word.wait];
            uint64_t blocked = (uint64_t)(now - w->since);
            w->stack->sum += blocked;
            session.monitors[w->monitor].blocked_nanos += blocked;
            session.monitors[w->monitor].last_entered = word.thread;
            w->stack = NULL;
            int32_t slot = word.wait;
            word.wait = -1;
            /* a word that could not be cleared still names the slot: the thread's next enter frees it */
            if (write_word(jvmti, word) == 0) {
                session.free_waits[session.free_wait_count++] = slot;
            }
            (*jvmti)->RawMonitorExit(jvmti, session.run.lock);
        }
    }
    gate_leave(&session.run.gate);
}

/* Under the lock: one more sighting of the thread (an index) holding the monitor. */
static void record_holder(int32_t index, int32_t thread) {
    monitor_entry *m = &session.monitors[index];
    m->holders_seen++;
    for (int i = 0; i < CONT_MAX_HOLDERS; i++) {
        if (m->holders[i].seen == 0 || m->holders[i].thread == thread) {
            m->holders[i].thread = thread;
            m->holders[i].seen++;
            return;
        }
    }
    m->other_holders++;
}

/* Under the lock: the index of the thread with this Java id that the session knows, or -1. */
static int32_t known_thread(jlong id) {
    for (size_t i = 0; i < session.thread_count; i++) {
        if (session.threads[i].id == id) {
            return (int32_t)i;
        }
    }
    return -1;
}

/* Whether the thread owns the monitor now, as a ThreadSnapshot of it says (JDK 25+). */
static int snapshot_owns(JNIEnv *jni, jweak candidate, jobject monitor) {
    jthread thread = (*jni)->NewLocalRef(jni, candidate);
    if (thread == NULL) {
        return 0; /* it has ended */
    }
    lock_facts facts;
    lock_ref wanted;
    memset(&facts, 0, sizeof facts);
    memset(&wanted, 0, sizeof wanted);
    int owns = 0;
    lock_facts_describe_object(jni, monitor, &wanted);
    if (wanted.class_name != NULL && thread_snapshot_locks(jni, thread, NULL, 0, &facts) == 0) {
        for (jint i = 0; i < facts.owned_count && !owns; i++) {
            owns = facts.owned[i].lock.hash == wanted.hash && facts.owned[i].lock.class_name != NULL
                    && strcmp(facts.owned[i].lock.class_name, wanted.class_name) == 0;
        }
    }
    lock_facts_free(&facts, 1);
    free(wanted.class_name);
    (*jni)->DeleteLocalRef(jni, thread);
    return owns;
}

/* The monitor's owner as GetObjectMonitorUsage names it: 1 with *owner a local ref (or NULL when
 * it names none), 0 when the call failed. */
static int monitor_owner(jvmtiEnv *jvmti, JNIEnv *jni, jobject monitor, jthread *owner) {
    jvmtiMonitorUsage usage;
    memset(&usage, 0, sizeof usage);
    *owner = NULL;
    if ((*jvmti)->GetObjectMonitorUsage(jvmti, monitor, &usage) != JVMTI_ERROR_NONE) {
        return 0;
    }
    jni_reserve_locals(jni, 1 + usage.waiter_count + usage.notify_waiter_count);
    *owner = usage.owner;
    for (jint i = 0; i < usage.waiter_count; i++) (*jni)->DeleteLocalRef(jni, usage.waiters[i]);
    for (jint i = 0; i < usage.notify_waiter_count; i++) (*jni)->DeleteLocalRef(jni, usage.notify_waiters[i]);
    if (usage.waiters != NULL) (*jvmti)->Deallocate(jvmti, (unsigned char *)usage.waiters);
    if (usage.notify_waiters != NULL) (*jvmti)->Deallocate(jvmti, (unsigned char *)usage.notify_waiters);
    return 1;
}

/* Looks up who holds one queued monitor and records it. */
static void look_up_owner(jvmtiEnv *jvmti, JNIEnv *jni, lookup item) {
    jthread owner = NULL;
    if (!monitor_owner(jvmti, jni, item.monitor, &owner)) {
        return;
    }
    if (owner != NULL) {
        thread_identity who = identify(jvmti, jni, owner);
        (*jni)->DeleteLocalRef(jni, owner);
        (*jvmti)->RawMonitorEnter(jvmti, session.run.lock);
        int32_t thread = known_thread(who.id);
        if (thread < 0) {
            thread = add_thread(&who);
        }
        /* the contender itself owning it means it got in before we looked: no holder seen */
        if (thread >= 0 && thread != item.contender) {
            record_holder(item.index, thread);
        }
        (*jvmti)->RawMonitorExit(jvmti, session.run.lock);
        forget_identity(jvmti, jni, &who);
        return;
    }
    if (!session.snapshots) {
        return;
    }
    /* None named: free, or owned by an unmounted virtual thread, which has no JavaThread */
    (*jvmti)->RawMonitorEnter(jvmti, session.run.lock);
    int32_t candidate = session.monitors[item.index].last_entered;
    jweak ref = candidate >= 0 && candidate != item.contender ? session.threads[candidate].ref : NULL;
    (*jvmti)->RawMonitorExit(jvmti, session.run.lock);
    if (ref != NULL && snapshot_owns(jni, ref, item.monitor)) {
        (*jvmti)->RawMonitorEnter(jvmti, session.run.lock);
        record_holder(item.index, candidate);
        (*jvmti)->RawMonitorExit(jvmti, session.run.lock);
    }
}

/* The helper thread: asks who owns each queued monitor. */
static void JNICALL owner_lookups(jvmtiEnv *jvmti, JNIEnv *jni, void *arg) {
    (void)arg;
    mark_agent_thread(jvmti);
    for (;;) {
        lookup item;
        (*jvmti)->RawMonitorEnter(jvmti, session.run.lock);
        while (session.helper_run && session.queue_len == 0) {
            (*jvmti)->RawMonitorWait(jvmti, session.run.lock, 200);
        }
        if (!session.helper_run) {
            (*jvmti)->RawMonitorExit(jvmti, session.run.lock);
            break;
        }
        item = session.queue[0];
        memmove(session.queue, session.queue + 1, (size_t)(--session.queue_len) * sizeof item);
        (*jvmti)->RawMonitorExit(jvmti, session.run.lock);
        /* a ThreadSnapshot makes local references of its own */
        if ((*jni)->PushLocalFrame(jni, JNI_COMMAND_LOCALS) == 0) {
            look_up_owner(jvmti, jni, item);
            (*jni)->PopLocalFrame(jni, NULL);
        } else {
            jni_cleared_exception(jni);
        }
        (*jni)->DeleteGlobalRef(jni, item.monitor);
    }
    __atomic_store_n(&session.helper_done, 1, __ATOMIC_SEQ_CST);
}

static int start_helper(JNIEnv *jni) {
    session.helper = jni_new_thread(jni, "jvmti-cli contention");
    if (session.helper == NULL) {
        return -1;
    }
    if (own_threads_add(session.helper) != 0) {
        (*jni)->DeleteGlobalRef(jni, session.helper);
        session.helper = NULL;
        return -1;
    }
    session.helper_run = 1;
    session.helper_done = 0;
    if ((*the_agent.jvmti)->RunAgentThread(the_agent.jvmti, session.helper, owner_lookups, NULL, JVMTI_THREAD_NORM_PRIORITY)
            != JVMTI_ERROR_NONE) {
        session.helper_run = 0;
        own_threads_remove(session.helper);
        (*jni)->DeleteGlobalRef(jni, session.helper);
        session.helper = NULL;
        return -1;
    }
    return 0;
}

static void stop_helper(JNIEnv *jni) {
    jvmtiEnv *jvmti = the_agent.jvmti;
    if (session.helper == NULL) {
        return;
    }
    (*jvmti)->RawMonitorEnter(jvmti, session.run.lock);
    session.helper_run = 0;
    (*jvmti)->RawMonitorNotifyAll(jvmti, session.run.lock);
    (*jvmti)->RawMonitorExit(jvmti, session.run.lock);
    for (int waited = 0; !__atomic_load_n(&session.helper_done, __ATOMIC_SEQ_CST); waited++) {
        if (waited == 5000) {
            return; /* not gone after 5 s: close_tables keeps what it uses */
        }
        struct timespec pause = { 0, 1000 * 1000 };
        nanosleep(&pause, NULL);
    }
    for (int i = 0; i < session.queue_len; i++) {
        (*jni)->DeleteGlobalRef(jni, session.queue[i].monitor);
    }
    session.queue_len = 0;
    own_threads_remove(session.helper);
    (*jni)->DeleteGlobalRef(jni, session.helper);
    session.helper = NULL;
}

static void free_tables(void) {
    stack_table_free(&session.stacks);
    name_table_free(&session.names);
}

static int close_tables(void) {
    if (session.helper != NULL) {
        return -1; /* the helper thread was not stopped: its lock and tables must outlive it */
    }
    free_tables();
    return 0;
}

static int open_tables(command_ctx *ctx) {
    memset(session.monitors, 0, sizeof session.monitors);
    session.monitor_count = 0;
    session.thread_count = 0;
    memset(session.waits, 0, sizeof session.waits);
    for (int32_t i = 0; i < CONT_MAX_WAITS; i++) {
        session.free_waits[i] = CONT_MAX_WAITS - 1 - i;
    }
    session.free_wait_count = CONT_MAX_WAITS;
    session.events = session.dropped = 0;
    session.queue_len = 0;
    session.ended = 0;
    session.still_count = session.before_count = 0;
    session.untracked_contenders = session.before_dropped = 0;
    session.before_not_read = NULL;
    session.virtual_before_not_read = NULL;
    if (session.virtual_thread == NULL) {
        session.virtual_thread = jni_global_class(ctx->jni, "java/lang/VirtualThread"); /* kept for the agent's life */
    }
    session.snapshots = session.virtual_thread != NULL && thread_snapshot_available(ctx->jni);
    mark_agent_thread(the_agent.jvmti);
    if (stack_table_init(&session.stacks, CONT_STACK_SLOTS) != 0
            || name_table_init(&session.names, CONT_MAX_NAMES, CONT_NAME_ARENA) != 0) {
        free_tables();
        command_fail(ctx, "no_memory", "cannot allocate the contention tables");
        return -1;
    }
    if (start_helper(ctx->jni) != 0) {
        free_tables();
        command_fail(ctx, "internal", "cannot start the owner lookup thread");
        return -1;
    }
    __atomic_add_fetch(&session.generation, 1, __ATOMIC_SEQ_CST);
    return 0;
}

static void quiesce(JNIEnv *jni) {
    if (jni == NULL) {
        return;
    }
    stop_helper(jni);
    if (session.helper == NULL) {
        for (size_t i = 0; i < session.thread_count; i++) {
            if (session.threads[i].ref != NULL) {
                (*jni)->DeleteWeakGlobalRef(jni, session.threads[i].ref);
                session.threads[i].ref = NULL;
            }
        }
    }
}

static void add_callbacks(jvmtiEventCallbacks *callbacks) {
    callbacks->MonitorContendedEnter = on_enter;
    callbacks->MonitorContendedEntered = on_entered;
}

static void wants(jvmtiCapabilities *c) {
    c->can_generate_monitor_events = 1;
}

/* Under the lock, at the window's end: the waits not yet over are still waiting. Their time until
 * now counts in the window's blocked time, so that blocked time per enter is not diluted by the
 * enters the window cut short. Their slots stay taken: a thread's next enter frees its own. */
static void take_still_waiting(void) {
    session.until = events_now_nanos();
    session.ended = 1;
    for (size_t i = 0; i < CONT_MAX_WAITS; i++) {
        wait_entry *w = &session.waits[i];
        if (w->stack != NULL) {
            uint64_t waited = (uint64_t)(session.until - w->since);
            w->stack->sum += waited;
            session.monitors[w->monitor].blocked_nanos += waited;
            session.still[session.still_count++] = (still_waiting){ w->stack, w->monitor, waited };
            w->stack = NULL;
        }
    }
}

/* The name index of a thread's name, or -1; takes the lock. */
static int32_t intern_thread_name(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread) {
    char *name = thread_name(jvmti, jni, thread);
    int32_t index = -1;
    if (name != NULL && (*jvmti)->RawMonitorEnter(jvmti, session.run.lock) == JVMTI_ERROR_NONE) {
        index = name_table_intern(&session.names, name);
        (*jvmti)->RawMonitorExit(jvmti, session.run.lock);
    }
    agent_deallocate(name);
    return index;
}

/* The threads one read at the window's end looked at, to name an owner by its Java id. */
typedef struct {
    const lock_subject *subjects;
    size_t count;
} thread_names;

/* Keeps the blocked thread read at the window's end (its facts settled: thread_moment.h). */
static void keep_blocked(jvmtiEnv *jvmti, JNIEnv *jni, const lock_subject *s, const thread_moment *m, thread_names known) {
    if (session.before_count == CONT_MAX_BLOCKED_BEFORE) {
        session.before_dropped++;
        return;
    }
    blocked_before b = { s->id, intern_thread_name(jvmti, jni, s->thread), -1, m->locks.waits_for.hash, m->locks.owner_id, -1,
                         m->locks.owner_unknown, s->is_virtual };
    if ((*jvmti)->RawMonitorEnter(jvmti, session.run.lock) == JVMTI_ERROR_NONE) {
        b.klass = name_table_intern(&session.names, m->locks.waits_for.class_name);
        (*jvmti)->RawMonitorExit(jvmti, session.run.lock);
    }
    for (size_t i = 0; b.owner_id >= 0 && i < known.count; i++) {
        if (known.subjects[i].id == b.owner_id) {
            b.owner_name = intern_thread_name(jvmti, jni, known.subjects[i].thread);
            break;
        }
    }
    session.before[session.before_count++] = b;
}

/* Takes the moments of subjects[0..taken) and keeps those of the first `blocked` that are blocked
 * entering a monitor, their owners named among subjects[0..count) (the platform threads past
 * `taken` are looked at only for their names). want_owned: the owners are found among what the
 * subjects taken own (ThreadSnapshot, which names no owner itself). */
static void keep_blocked_subjects(JNIEnv *jni, lock_subject *subjects, size_t blocked, size_t taken, size_t count, int want_owned,
                                  const char **not_read) {
    jvmtiEnv *jvmti = the_agent.jvmti;
    thread_moment *moments = calloc(taken > 0 ? taken : 1, sizeof *moments);
    if (moments == NULL) {
        *not_read = "no memory for the threads";
        return;
    }
    int usage_calls_left = LOCKS_MONITOR_USAGE_CALLS;
    if (thread_moments_take(jni, subjects, taken, want_owned ? CONT_OWNED_DEPTH : 0, want_owned, &usage_calls_left, moments) != 0) {
        *not_read = "the lock facts of some blocked threads could not be read";
    }
    for (size_t i = 0; i < blocked; i++) {
        const thread_moment *m = &moments[i];
        if (!m->unsettled && (m->state & JVMTI_THREAD_STATE_BLOCKED_ON_MONITOR_ENTER) && m->locks.waiting == WAIT_ENTER
                && m->locks.waits_for.class_name != NULL) {
            keep_blocked(jvmti, jni, &subjects[i], m, (thread_names){ subjects, count });
        }
    }
    thread_moments_free(moments, taken);
    for (size_t i = 0; i < taken; i++) {
        free(subjects[i].methods);
        subjects[i].methods = NULL;
    }
    free(moments);
}

static int blocked_on_monitor(JNIEnv *jni, jthread thread) {
    jint state = 0;
    return (*the_agent.jvmti)->GetThreadState(the_agent.jvmti, thread, &state) == JVMTI_ERROR_NONE
        && (state & JVMTI_THREAD_STATE_BLOCKED_ON_MONITOR_ENTER) && !own_threads_contains(jni, thread);
}

/* The virtual threads the walk finds blocked entering a monitor, as global references. */
typedef struct {
    JNIEnv *jni;
    jthread *threads;
    size_t count;
} virtual_blocked;

static int visit_virtual_thread(void *context, jthread thread) {
    virtual_blocked *v = context;
    if (!blocked_on_monitor(v->jni, thread)) {
        return 0;
    }
    if (v->count == CONT_MAX_VIRTUAL_BLOCKED) {
        session.before_dropped++;
        return 0;
    }
    jthread global = (*v->jni)->NewGlobalRef(v->jni, thread);
    if (global == NULL) {
        jni_cleared_exception(v->jni);
        session.virtual_before_not_read = "no memory for the virtual threads";
    } else {
        v->threads[v->count++] = global;
    }
    return 0;
}

/* The virtual threads (JDK 21+) blocked entering a monitor, found by the walk of the JDK's thread
 * containers: unmounted (JDK 24+) or pinned to a carrier that is blocked for them (JVMTI tells the
 * carrier as waiting, not blocked). The monitor is named by a ThreadSnapshot (JDK 25+), or by JVMTI
 * in start-up mode; ThreadMXBean knows no virtual thread. The owner is matched among what every
 * platform thread and those virtual threads own, each a snapshot of its own. */
static void read_blocked_virtual(JNIEnv *jni, lock_subject *platform, size_t platform_count) {
    const virtual_thread_layout *layout = NULL;
    if (session.virtual_thread == NULL || !capabilities_has_virtual_threads(&the_agent.held) || virtual_threads_prepare(jni, &layout) != NULL) {
        return;
    }
    virtual_blocked v = { jni, calloc(CONT_MAX_VIRTUAL_BLOCKED, sizeof(jthread)), 0 };
    jobject root = v.threads == NULL ? NULL : virtual_threads_root(jni);
    if (root == NULL) {
        session.virtual_before_not_read = "the JDK's thread containers could not be walked";
        free(v.threads);
        return;
    }
    virtual_thread_visitor visitor = { visit_virtual_thread, NULL, NULL, &v, 0, 0 };
    if (virtual_threads_walk(jni, root, &visitor) != 0) {
        session.virtual_before_not_read = "the JDK's thread containers could not be walked";
    }
    (*jni)->DeleteLocalRef(jni, root);
    lock_subject *subjects = v.count == 0 ? NULL : calloc(v.count + platform_count, sizeof *subjects);
    if (v.count > 0 && !session.snapshots && !locks_from_jvmti()) {
        session.virtual_before_not_read = "virtual threads are blocked entering a monitor; which one, only JDK 25+ can tell after a live attach";
    } else if (v.count > 0 && subjects == NULL) {
        session.virtual_before_not_read = "no memory for the threads";
    } else if (v.count > 0) {
        for (size_t i = 0; i < v.count; i++) {
            subjects[i] = (lock_subject){ .thread = v.threads[i], .id = thread_java_id(jni, v.threads[i]), .is_virtual = 1 };
        }
        size_t count = v.count;
        for (size_t i = 0; i < platform_count; i++) {
            if (!own_threads_contains(jni, platform[i].thread)) {
                subjects[count++] = (lock_subject){ .thread = platform[i].thread, .id = platform[i].id };
            }
        }
        keep_blocked_subjects(jni, subjects, v.count, count, count, 1, &session.virtual_before_not_read);
    }
    free(subjects);
    for (size_t i = 0; i < v.count; i++) {
        (*jni)->DeleteGlobalRef(jni, v.threads[i]);
    }
    free(v.threads);
}

/* Reads, at the window's end, the threads blocked entering a monitor, platform and virtual: each
 * as one moment, its state and the monitor it waits for together (thread_moment.h). Which of them
 * had no enter event in the window is told at the report, once every enter callback is over. */
static void read_blocked(JNIEnv *jni) {
    jvmtiEnv *jvmti = the_agent.jvmti;
    jthread *all = NULL;
    jint count = 0;
    if ((*jvmti)->GetAllThreads(jvmti, &count, &all) != JVMTI_ERROR_NONE) {
        session.before_not_read = "GetAllThreads failed";
        return;
    }
    jni_reserve_locals(jni, count);
    lock_subject *subjects = calloc(count > 0 ? (size_t)count : 1, sizeof *subjects);
    if (subjects == NULL) {
        session.before_not_read = "no memory for the threads";
    } else {
        size_t blocked = 0;
        size_t others = (size_t)count;
        for (jint i = 0; i < count; i++) { /* the blocked first, then the others, whose names may be owners' */
            lock_subject s = { .thread = all[i], .id = thread_java_id(jni, all[i]) };
            subjects[blocked_on_monitor(jni, all[i]) ? blocked++ : --others] = s;
        }
        keep_blocked_subjects(jni, subjects, blocked, blocked, (size_t)count, 0, &session.before_not_read);
        read_blocked_virtual(jni, subjects, (size_t)count);
    }
    for (jint i = 0; i < count; i++) (*jni)->DeleteLocalRef(jni, all[i]);
    (*jvmti)->Deallocate(jvmti, (unsigned char *)all);
    free(subjects);
}

static void end_window(JNIEnv *jni) {
    jvmtiEnv *jvmti = the_agent.jvmti;
    if ((*jvmti)->RawMonitorEnter(jvmti, session.run.lock) == JVMTI_ERROR_NONE) {
        take_still_waiting();
        (*jvmti)->RawMonitorExit(jvmti, session.run.lock);
    }
    read_blocked(jni);
}

static void write_started(json_writer *w) {
    json_begin_object(w);
    json_field_bool(w, "started", 1);
    json_end_object(w);
}

static void write_name(json_writer *w, int32_t index) {
    const char *name = name_table_get(&session.names, index);
    if (name == NULL) {
        json_null(w);
    } else {
        json_mutf8(w, name);
    }
}

/* "thread" (its name), "threadId" and "virtual" of a thread index; all null when not known. */
static void write_thread(json_writer *w, int32_t index) {
    const thread_entry *t = index >= 0 && (size_t)index < session.thread_count ? &session.threads[index] : NULL;
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

/* Under the lock, once the callbacks are over: the Java id's thread had an enter event in the
 * session (or may have had one: the thread table was full). */
static int contended_in_window(jlong id) {
    int32_t index = known_thread(id);
    return session.untracked_contenders > 0 || (index >= 0 && session.threads[index].contended);
}

static void write_still_waiting(json_writer *w, method_table *methods) {
    json_field_int(w, "untilNanos", session.until);
    json_begin_array_field(w, "stillWaiting");
    for (size_t i = 0; methods != NULL && i < session.still_count; i++) {
        const still_waiting *s = &session.still[i];
        json_begin_object(w);
        json_field_int(w, "monitor", s->monitor);
        write_thread(w, s->stack->aux);
        json_field_int(w, "waitedNanos", (int64_t)s->waited_nanos);
        json_key(w, "frames");
        method_table_write_frames(methods, w, s->stack->frames, s->stack->depth);
        json_end_object(w);
    }
    json_end_array(w);
}

/* The threads read blocked at the window's end that had no enter event in it. */
static void write_blocked_before(json_writer *w) {
    if (session.before_not_read != NULL) {
        json_field_cstring(w, "blockedBeforeNotKnown", session.before_not_read);
    } else if (session.untracked_contenders > 0) {
        json_field_cstring(w, "blockedBeforeNotKnown", "more threads contended than the agent's thread table holds");
    }
    if (session.virtual_before_not_read != NULL) {
        json_field_cstring(w, "virtualBlockedBeforeNotKnown", session.virtual_before_not_read);
    }
    json_field_int(w, "blockedBeforeDropped", (int64_t)session.before_dropped);
    json_begin_array_field(w, "blockedBefore");
    for (size_t i = 0; i < session.before_count; i++) {
        const blocked_before *b = &session.before[i];
        if (contended_in_window(b->id)) {
            continue;
        }
        json_begin_object(w);
        json_key(w, "thread");
        write_name(w, b->name);
        json_field_int(w, "threadId", b->id);
        json_key(w, "className");
        write_name(w, b->klass);
        json_field_int(w, "identityHash", (uint32_t)b->hash);
        json_key(w, "owner");
        write_name(w, b->owner_name);
        if (b->owner_id >= 0) {
            json_field_int(w, "ownerId", b->owner_id);
        } else {
            json_field_null(w, "ownerId");
        }
        json_field_bool(w, "ownerUnknown", b->owner_unknown);
        json_field_bool(w, "virtual", b->is_virtual);
        json_end_object(w);
    }
    json_end_array(w);
}

static void write_report(command_ctx *ctx, jlong elapsed, int64_t gcs) {
    (void)gcs;
    json_writer *w = ctx->out;
    method_table methods;
    int have_methods = method_table_init(&methods, session.stacks.used * STACK_MAX_FRAMES + 16) == 0;
    methods.with_origin = 1;
    command_result(ctx);
    json_begin_object(w);
    json_field_int(w, "durationNanos", elapsed);
    json_field_int(w, "events", (int64_t)session.events);
    json_field_int(w, "dropped", (int64_t)session.dropped);
    json_begin_array_field(w, "monitors");
    for (size_t i = 0; i < CONT_MAX_MONITORS; i++) {
        const monitor_entry *m = &session.monitors[i];
        if (!m->used) {
            continue;
        }
        json_begin_object(w);
        json_field_int(w, "id", (int64_t)i);
        json_key(w, "class");
        write_name(w, m->klass);
        json_field_int(w, "identityHash", (uint32_t)m->hash);
        json_field_int(w, "count", (int64_t)m->count);
        json_field_int(w, "blockedNanos", (int64_t)m->blocked_nanos);
        json_begin_array_field(w, "holders");
        for (int h = 0; h < CONT_MAX_HOLDERS && m->holders[h].seen > 0; h++) {
            json_begin_object(w);
            write_thread(w, m->holders[h].thread);
            json_field_int(w, "seen", (int64_t)m->holders[h].seen);
            json_end_object(w);
        }
        json_end_array(w);
        json_field_int(w, "otherHolders", (int64_t)m->other_holders);
        json_end_object(w);
    }
    json_end_array(w);
    json_begin_array_field(w, "stacks");
    for (size_t i = 0; have_methods && i < session.stacks.capacity; i++) {
        const stack_entry *e = &session.stacks.slots[i];
        if (e->hash == 0) {
            continue;
        }
        json_begin_object(w);
        json_field_int(w, "monitor", e->key);
        write_thread(w, e->aux);
        json_field_int(w, "count", (int64_t)e->count);
        json_field_int(w, "blockedNanos", (int64_t)e->sum);
        json_key(w, "frames");
        method_table_write_frames(&methods, w, e->frames, e->depth);
        json_end_object(w);
    }
    json_end_array(w);
    write_still_waiting(w, have_methods ? &methods : NULL);
    write_blocked_before(w);
    json_key(w, "methods");
    method_table_finish(have_methods ? &methods : NULL, ctx->jni, w);
    json_end_object(w);
}

static const session_event events[] = {
    { JVMTI_EVENT_MONITOR_CONTENDED_ENTER, "MonitorContendedEnter" },
    { JVMTI_EVENT_MONITOR_CONTENDED_ENTERED, "MonitorContendedEntered" },
};

static const session_engine engine = {
    .what = "contention profiling",
    .lock_name = "jvmti-cli contention",
    .capability = "can_generate_monitor_events",
    .wants = wants,
    .events = events,
    .event_count = sizeof events / sizeof events[0],
    .callbacks = add_callbacks,
    .open = open_tables,
    .window_end = end_window,
    .quiesce = quiesce,
    .started = write_started,
    .report = write_report,
    .close = close_tables,
    .state = &session.run,
};

void cmd_contention_start(command_ctx *ctx) {
    session_start(&engine, ctx);
}

void cmd_contention_stop(command_ctx *ctx) {
    session_stop(&engine, ctx);
}
