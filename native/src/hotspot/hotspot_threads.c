#include "hotspot_threads.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent.h"
#include "jni_util.h"
#include "own_memory.h"
#include "vm_structs.h"

/* OSThread::print_on's words for each ThreadState, by the name of its constant in the table. */
static const struct {
    const char *constant;
    const char *text;
} state_words[] = {
    { "ALLOCATED", "allocated" },
    { "INITIALIZED", "initialized" },
    { "RUNNABLE", "runnable" },
    { "MONITOR_WAIT", "waiting for monitor entry" },
    { "CONDVAR_WAIT", "waiting on condition" },
    { "OBJECT_WAIT", "in Object.wait()" },
    { "BREAKPOINTED", "at breakpoint" },
    { "SLEEPING", "sleeping" },
    { "ZOMBIE", "zombie" },
};
#define STATE_COUNT (sizeof state_words / sizeof state_words[0])

/* Looked up once: the table is the JVM's and does not change. */
static struct {
    int looked_up;
    int found;                 /* the offsets below are known */
    uint64_t osthread;         /* JavaThread::_osthread (declared on Thread from JDK 21 on) */
    uint64_t thread_id;        /* OSThread::_thread_id, a 4-byte pid_t */
    int has_state;
    uint64_t state;            /* OSThread::_state, a 4-byte ThreadState */
    int has_value[STATE_COUNT];
    int32_t value[STATE_COUNT];
    jfieldID eetop;
} layout;

static int field_of_size(const vm_structs *vm, const char *type, const char *field, uint64_t size, uint64_t *offset) {
    const char *field_type;
    uint64_t field_size;
    return vm_structs_field(vm, type, field, offset, &field_type) == 0 && field_type != NULL
                   && vm_structs_type_size(vm, field_type, &field_size) == 0 && field_size == size
               ? 0
               : -1;
}

static void look_up(JNIEnv *jni) {
    layout.looked_up = 1;
    vm_structs vm;
    if (vm_structs_find(&vm) != 0) {
        return;
    }
    if (field_of_size(&vm, "JavaThread", "_osthread", sizeof(void *), &layout.osthread) != 0
        && field_of_size(&vm, "Thread", "_osthread", sizeof(void *), &layout.osthread) != 0) {
        return;
    }
    if (field_of_size(&vm, "OSThread", "_thread_id", sizeof(int32_t), &layout.thread_id) != 0) {
        return;
    }
    layout.has_state = field_of_size(&vm, "OSThread", "_state", sizeof(int32_t), &layout.state) == 0;
    for (size_t i = 0; i < STATE_COUNT; i++) {
        layout.has_value[i] = vm_structs_int(&vm, state_words[i].constant, &layout.value[i]) == 0;
    }
    jclass thread_class = (*jni)->FindClass(jni, "java/lang/Thread");
    if (jni_failed(jni, thread_class)) {
        return;
    }
    layout.eetop = (*jni)->GetFieldID(jni, thread_class, "eetop", "J");
    (*jni)->DeleteLocalRef(jni, thread_class);
    layout.found = !jni_failed(jni, layout.eetop);
}

static const char *state_text(int32_t state) {
    for (size_t i = 0; i < STATE_COUNT; i++) {
        if (layout.has_value[i] && layout.value[i] == state) {
            return state_words[i].text;
        }
    }
    return NULL;
}

typedef struct {
    uintptr_t thread;      /* the HotSpot Thread */
    uintptr_t os_thread;
    int32_t tid;
    int32_t state;
    int has_cpu;
    int64_t cpu_nanos;
    int own_task; /* recalled with its tid proven a task of this process */
} thread_record;

/* For each record but those marked in skip (NULL: none), size bytes at offset in its OSThread
 * (from_os_thread) or Thread, into field. */
static void read_field(thread_record *records, const unsigned char *skip, own_read *reads, size_t count,
                       int from_os_thread, uint64_t offset, size_t field, size_t size) {
    for (size_t i = 0; i < count; i++) {
        uintptr_t base = skip != NULL && skip[i] ? 0 : from_os_thread ? records[i].os_thread : records[i].thread;
        reads[i] = (own_read) { base == 0 ? 0 : base + offset, (char *)&records[i] + field, size, 0 };
    }
    own_memory_read_each(reads, count);
}

/* Reads each record's OSThread (from its Thread) and that OSThread's id, but where recalled[i]
 * says the record holds them already (recalled NULL: none does), and every record's state;
 * has_tid[i] says whether the id is known. */
static void read_os_threads(thread_record *records, const unsigned char *recalled, own_read *reads,
                            unsigned char *has_tid, size_t count) {
    read_field(records, recalled, reads, count, 0, layout.osthread, offsetof(thread_record, os_thread), sizeof(uintptr_t));
    for (size_t i = 0; i < count; i++) {
        if (recalled == NULL || !recalled[i]) {
            records[i].os_thread = reads[i].ok ? records[i].os_thread : 0;
        }
    }
    read_field(records, recalled, reads, count, 1, layout.thread_id, offsetof(thread_record, tid), sizeof(int32_t));
    for (size_t i = 0; i < count; i++) {
        has_tid[i] = (unsigned char)((recalled != NULL && recalled[i]) || reads[i].ok);
    }
    if (layout.has_state) {
        read_field(records, NULL, reads, count, 1, layout.state, offsetof(thread_record, state), sizeof(int32_t));
    } else {
        for (size_t i = 0; i < count; i++) {
            reads[i].ok = 0;
        }
    }
}

int hotspot_threads_read_native(JNIEnv *jni, const uintptr_t *threads, size_t count, native_thread *out) {
    if (!layout.looked_up) {
        look_up(jni);
    }
    if (!layout.found) {
        return -1;
    }
    memset(out, 0, count * sizeof *out);
    size_t room = count > 0 ? count : 1;
    thread_record *records = calloc(room, sizeof *records);
    own_read *reads = calloc(room, sizeof *reads);
    unsigned char *read_tid = calloc(room, 1);
    int allocated = records != NULL && reads != NULL && read_tid != NULL; /* else every thread unknown */
    for (size_t i = 0; allocated && i < count; i++) {
        records[i].thread = threads[i];
    }
    if (allocated) {
        read_os_threads(records, NULL, reads, read_tid, count);
    }
    for (size_t i = 0; allocated && i < count; i++) {
        thread_record *r = &records[i];
        if (read_tid[i] && r->tid > 0) {
            out[i].nid = r->tid;
            out[i].address = (uint64_t)r->thread;
            out[i].os_state = reads[i].ok ? state_text(r->state) : NULL;
        }
    }
    free(records);
    free(reads);
    free(read_tid);
    return 0;
}

/* What the last hotspot_threads_read proved of each thread it was asked about, by Java id. A
 * Thread's eetop is set once, when it starts, and cleared when it ends, and a JavaThread's
 * OSThread and kernel thread id are set when it is made and kept until it is freed: so while the
 * Thread of that Java id holds the same JavaThread in eetop, they are the ones remembered, and
 * only the OS thread's state, which changes, is read again. A tid once proven a task of this
 * process (hotspot_threads_confirm) stays one while eetop holds the JavaThread: its task ends only
 * after the thread cleared eetop, and a tid is not reused before its task ends. */
typedef struct {
    jlong id;
    uintptr_t java_thread;
    uintptr_t os_thread;
    int32_t tid;
    int own_task;
} known_thread;

static struct {
    known_thread *threads; /* sorted by id */
    size_t count;
} known;

static int by_id(const void *a, const void *b) {
    jlong x = ((const known_thread *)a)->id;
    jlong y = ((const known_thread *)b)->id;
    return (x > y) - (x < y);
}

/* The remembered OSThread and id of the thread of this Java id, when its eetop still holds the
 * JavaThread they were read from; else 0. */
static int recall(jlong id, uintptr_t java_thread, thread_record *r) {
    known_thread key = { .id = id };
    const known_thread *seen = known.count == 0 ? NULL : bsearch(&key, known.threads, known.count, sizeof key, by_id);
    if (seen == NULL || java_thread == 0 || seen->java_thread != java_thread) {
        return 0;
    }
    r->os_thread = seen->os_thread;
    r->tid = seen->tid;
    r->own_task = seen->own_task;
    return 1;
}

/* Remembers the records of the threads whose eetop held the same JavaThread after the reads as
 * before them, in place of what was remembered: ended threads are forgotten. Out of memory,
 * nothing is remembered. */
static void remember(const jlong *ids, const thread_record *records, const native_thread *out, size_t count) {
    known_thread *kept = malloc((count > 0 ? count : 1) * sizeof *kept);
    size_t n = 0;
    for (size_t i = 0; kept != NULL && i < count; i++) {
        if (out[i].nid != 0 && ids[i] >= 0) {
            kept[n++] = (known_thread) { ids[i], records[i].thread, records[i].os_thread, records[i].tid, records[i].own_task };
        }
    }
    if (kept != NULL) {
        qsort(kept, n, sizeof *kept, by_id);
    }
    free(known.threads);
    known.threads = kept;
    known.count = kept == NULL ? 0 : n;
}

/* The CPU time of each record's task, as HotSpot reads a thread's (the task's clock, which the
 * kernel gives only to a thread of the same process): read here, where the eetop check that
 * follows also proves the task was still the thread's, rather than by one JVMTI call a thread. */
static void read_cpu_times(thread_record *records, const unsigned char *has_tid, size_t count) {
    for (size_t i = 0; i < count; i++) {
        struct timespec ts;
        /* glibc's MAKE_THREAD_CPUCLOCK(tid, CPUCLOCK_SCHED), what pthread_getcpuclockid gives */
        clockid_t clock = (clockid_t)((~(unsigned int)records[i].tid) << 3) | 6;
        records[i].has_cpu = has_tid[i] && records[i].tid > 0 && clock_gettime(clock, &ts) == 0;
        records[i].cpu_nanos = records[i].has_cpu ? (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec : -1;
    }
}

/* A JavaThread is freed only after its thread cleared eetop (JavaThread::exit, ensure_join), and
 * eetop is never set again: an eetop unchanged after the reads proves they read the live thread. */
int hotspot_threads_read(JNIEnv *jni, const jthread *threads, const jlong *ids, size_t count, native_thread *out) {
    if (!layout.looked_up) {
        look_up(jni);
    }
    if (!layout.found) {
        return -1;
    }
    memset(out, 0, count * sizeof *out);
    size_t room = count > 0 ? count : 1;
    thread_record *records = calloc(room, sizeof *records);
    own_read *reads = calloc(room, sizeof *reads);
    unsigned char *recalled = calloc(room, 1);
    unsigned char *read_tid = calloc(room, 1);
    if (records == NULL || reads == NULL || recalled == NULL || read_tid == NULL) {
        free(records);
        free(reads);
        free(recalled);
        free(read_tid);
        return 0; /* every thread unknown */
    }
    for (size_t i = 0; i < count; i++) {
        records[i].thread = (uintptr_t)(*jni)->GetLongField(jni, threads[i], layout.eetop);
        recalled[i] = (unsigned char)recall(ids[i], records[i].thread, &records[i]);
    }
    read_os_threads(records, recalled, reads, read_tid, count);
    read_cpu_times(records, read_tid, count);
    for (size_t i = 0; i < count; i++) {
        thread_record *r = &records[i];
        if (read_tid[i] && r->tid > 0 && (uintptr_t)(*jni)->GetLongField(jni, threads[i], layout.eetop) == r->thread) {
            out[i].nid = r->tid;
            out[i].address = (uint64_t)r->thread;
            out[i].os_state = reads[i].ok ? state_text(r->state) : NULL;
            out[i].has_cpu = r->has_cpu;
            out[i].cpu_nanos = r->cpu_nanos;
            out[i].own_task = r->own_task;
        }
    }
    remember(ids, records, out, count);
    free(records);
    free(reads);
    free(recalled);
    free(read_tid);
    return 0;
}

void hotspot_threads_confirm(const jlong *ids, const native_thread *threads, size_t count) {
    for (size_t i = 0; i < count; i++) {
        known_thread key = { .id = ids[i] };
        known_thread *seen = known.count == 0 ? NULL : bsearch(&key, known.threads, known.count, sizeof key, by_id);
        if (seen != NULL && threads[i].own_task && threads[i].nid == seen->tid && threads[i].address == (uint64_t)seen->java_thread) {
            seen->own_task = 1;
        }
    }
}

void hotspot_threads_forget(void) {
    free(known.threads);
    known.threads = NULL;
    known.count = 0;
}
AGENT_FORGET(hotspot_threads_forget)
