/* `contention.start` / `contention.stop`: lock-contention profiling with MonitorContendedEnter
 * and MonitorContendedEntered, a session engine (session.h).
 *
 * The enter callback, on the thread about to block, records the monitor (class signature and
 * identity hash), the thread's name (fetched once per thread and session) and its stack, and
 * remembers the start time in a thread-local; the entered callback adds the blocked time. Who
 * held the monitor is NOT looked up in the callback: GetObjectMonitorUsage is a VM operation (a
 * safepoint) in HotSpot, too heavy for a callback. Instead the callback queues a global ref of the
 * monitor (a few per monitor, in a small fixed queue) for a helper agent thread, which asks for the
 * owner while the contender is still blocked behind it. Names and lines are resolved at stop. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "agent.h"
#include "aggregate.h"
#include "answer.h"
#include "jni_util.h"
#include "method_table.h"
#include "session.h"

#define CONT_STACK_SLOTS 2048
#define CONT_MAX_MONITORS 1024
#define CONT_MAX_NAMES 2048
#define CONT_NAME_ARENA (256 * 1024)
#define CONT_MAX_HOLDERS 4
#define CONT_LOOKUPS_PER_MONITOR 8
#define CONT_QUEUE 32

typedef struct {
    int32_t thread;   /* name index */
    uint64_t seen;
} holder;

typedef struct {
    int used;
    jint hash;              /* identity hash */
    int32_t klass;          /* name index of the class signature */
    uint64_t count;
    uint64_t blocked_nanos;
    int lookups;            /* owner lookups queued */
    holder holders[CONT_MAX_HOLDERS];
    uint64_t other_holders;
} monitor_entry;

typedef struct {
    jobject monitor;        /* global ref */
    int32_t index;          /* monitor_entry */
    int32_t contender;      /* name index */
} lookup;

static struct {
    session_state run;
    int generation;
    stack_table stacks;
    name_table names;       /* thread names and class signatures */
    monitor_entry monitors[CONT_MAX_MONITORS];
    size_t monitor_count;
    uint64_t events;
    uint64_t dropped;
    lookup queue[CONT_QUEUE];
    int queue_len;
    int helper_run;
    int helper_done;
    jthread helper;
} session;

/* What the thread's last contended enter was, for its entered event. */
static _Thread_local struct {
    int generation;
    int32_t thread_name;
    int pending;
    stack_entry *stack;
    int32_t monitor;
    jlong since;
} me;

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

static void JNICALL on_enter(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jobject object) {
    if (!gate_enter(&session.run.gate)) {
        return;
    }
    jvmtiFrameInfo frames[STACK_MAX_FRAMES];
    jint depth = 0;
    jint hash = 0;
    char *name = NULL;
    char *signature = class_signature(jvmti, jni, object);
    int generation = __atomic_load_n(&session.generation, __ATOMIC_SEQ_CST);
    if (me.generation != generation) {
        name = thread_name(jvmti, jni, thread);
    }
    if ((*jvmti)->GetStackTrace(jvmti, NULL, 0, STACK_MAX_FRAMES, frames, &depth) != JVMTI_ERROR_NONE) {
        depth = 0;
    }
    if ((*jvmti)->GetObjectHashCode(jvmti, object, &hash) != JVMTI_ERROR_NONE) {
        hash = 0;
    }
    me.pending = 0;
    if ((*jvmti)->RawMonitorEnter(jvmti, session.run.lock) == JVMTI_ERROR_NONE) {
        session.events++;
        if (me.generation != generation) {
            me.thread_name = name == NULL ? -1 : name_table_intern(&session.names, name);
            me.generation = generation;
        }
        int32_t klass = signature == NULL ? -1 : name_table_intern(&session.names, signature);
        int32_t index = -1;
        monitor_entry *m = klass < 0 ? NULL : find_monitor(hash, klass, &index);
        stack_entry *e = m == NULL ? NULL : stack_table_find_or_add(&session.stacks, index, me.thread_name, frames, depth);
        if (e == NULL) {
            session.dropped++;
        } else {
            m->count++;
            e->count++;
            me.pending = 1;
            me.stack = e;
            me.monitor = index;
            me.since = events_now_nanos();
            if (m->lookups < CONT_LOOKUPS_PER_MONITOR && session.queue_len < CONT_QUEUE) {
                jobject ref = (*jni)->NewGlobalRef(jni, object);
                if (ref != NULL) {
                    m->lookups++;
                    session.queue[session.queue_len++] = (lookup){ ref, index, me.thread_name };
                    (*jvmti)->RawMonitorNotifyAll(jvmti, session.run.lock);
                }
            }
        }
        (*jvmti)->RawMonitorExit(jvmti, session.run.lock);
    }
    if (name != NULL) (*jvmti)->Deallocate(jvmti, (unsigned char *)name);
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
    if (me.pending && me.generation == __atomic_load_n(&session.generation, __ATOMIC_SEQ_CST)) {
        jlong blocked = events_now_nanos() - me.since;
        me.pending = 0;
        if ((*jvmti)->RawMonitorEnter(jvmti, session.run.lock) == JVMTI_ERROR_NONE) {
            me.stack->sum += (uint64_t)blocked;
            session.monitors[me.monitor].blocked_nanos += (uint64_t)blocked;
            (*jvmti)->RawMonitorExit(jvmti, session.run.lock);
        }
    }
    gate_leave(&session.run.gate);
}

static void record_holder(int32_t index, int32_t thread) {
    monitor_entry *m = &session.monitors[index];
    for (int i = 0; i < CONT_MAX_HOLDERS; i++) {
        if (m->holders[i].seen == 0 || m->holders[i].thread == thread) {
            m->holders[i].thread = thread;
            m->holders[i].seen++;
            return;
        }
    }
    m->other_holders++;
}

/* The helper thread: asks who owns each queued monitor. */
static void JNICALL owner_lookups(jvmtiEnv *jvmti, JNIEnv *jni, void *arg) {
    (void)arg;
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

        jvmtiMonitorUsage usage;
        memset(&usage, 0, sizeof usage);
        char *name = NULL;
        if ((*jvmti)->GetObjectMonitorUsage(jvmti, item.monitor, &usage) == JVMTI_ERROR_NONE) {
            jni_reserve_locals(jni, 1 + usage.waiter_count + usage.notify_waiter_count);
            if (usage.owner != NULL) {
                name = thread_name(jvmti, jni, usage.owner);
                (*jni)->DeleteLocalRef(jni, usage.owner);
            }
            for (jint i = 0; i < usage.waiter_count; i++) (*jni)->DeleteLocalRef(jni, usage.waiters[i]);
            for (jint i = 0; i < usage.notify_waiter_count; i++) (*jni)->DeleteLocalRef(jni, usage.notify_waiters[i]);
            if (usage.waiters != NULL) (*jvmti)->Deallocate(jvmti, (unsigned char *)usage.waiters);
            if (usage.notify_waiters != NULL) (*jvmti)->Deallocate(jvmti, (unsigned char *)usage.notify_waiters);
        }
        (*jni)->DeleteGlobalRef(jni, item.monitor);
        if (name != NULL) {
            (*jvmti)->RawMonitorEnter(jvmti, session.run.lock);
            int32_t owner = name_table_intern(&session.names, name);
            /* the contender itself owning it means it got in before we looked: no holder seen */
            if (owner >= 0 && owner != item.contender) {
                record_holder(item.index, owner);
            }
            (*jvmti)->RawMonitorExit(jvmti, session.run.lock);
            (*jvmti)->Deallocate(jvmti, (unsigned char *)name);
        }
    }
    __atomic_store_n(&session.helper_done, 1, __ATOMIC_SEQ_CST);
}

static int start_helper(JNIEnv *jni) {
    session.helper = jni_new_thread(jni, "jvmti-cli contention");
    if (session.helper == NULL) {
        return -1;
    }
    session.helper_run = 1;
    session.helper_done = 0;
    if ((*the_agent.jvmti)->RunAgentThread(the_agent.jvmti, session.helper, owner_lookups, NULL, JVMTI_THREAD_NORM_PRIORITY)
            != JVMTI_ERROR_NONE) {
        session.helper_run = 0;
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
    session.events = session.dropped = 0;
    session.queue_len = 0;
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
    if (jni != NULL) {
        stop_helper(jni);
    }
}

static void add_callbacks(jvmtiEventCallbacks *callbacks) {
    callbacks->MonitorContendedEnter = on_enter;
    callbacks->MonitorContendedEntered = on_entered;
}

static void wants(jvmtiCapabilities *c) {
    c->can_generate_monitor_events = 1;
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
            json_key(w, "thread");
            write_name(w, m->holders[h].thread);
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
        json_key(w, "thread");
        write_name(w, e->aux);
        json_field_int(w, "count", (int64_t)e->count);
        json_field_int(w, "blockedNanos", (int64_t)e->sum);
        json_key(w, "frames");
        method_table_write_frames(&methods, w, e->frames, e->depth);
        json_end_object(w);
    }
    json_end_array(w);
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
