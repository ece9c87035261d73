/* The live threads a command is about, with their facts: every thread, or those whose Java id
 * the request lists under "threads". */
#ifndef JVMTICLI_THREAD_SET_H
#define JVMTICLI_THREAD_SET_H

#include <jni.h>
#include <jvmti.h>
#include <stddef.h>
#include <stdint.h>

#include "locks.h"
#include "native_ids.h"
#include "request.h"
#include "thread_facts.h"
#include "thread_moment.h"

typedef struct {
    jthread *all;              /* from GetAllThreads; local refs */
    jint all_count;
    jthread *threads;          /* the chosen ones, in GetAllThreads order */
    thread_facts *facts;
    lock_subject *subjects;    /* the same threads as lock_subject, for thread_set_take */
    thread_moment *moments;    /* each thread's state, frames and lock facts: see thread_set_take */
    native_thread *natives;    /* zeroed, for thread_set_find_nids */
    size_t count;
    int complete;              /* every live thread, not those of a "threads" list */
    /* with the request's "usage": each thread's user and system CPU apart (its native's
     * cpu_apart) and allocated bytes, read with its CPU time by thread_set_find_nids */
    int with_usage;
    jlong *allocated_bytes;    /* by thread, -1 when unknown; NULL without usage */
    /* CLOCK_MONOTONIC nanoseconds before the first and after the last CPU time read for the set
     * (thread_set_find_nids, thread_set_cpu_read_done); -1 where the clock could not be read */
    int64_t cpu_read_start_nanos;
    int64_t cpu_read_end_nanos;
} thread_set;

/* Returns JVMTI_ERROR_NONE, or an error (then nothing needs freeing). The facts' states are
 * thread_set_take's to set. */
jvmtiError thread_set_collect(JNIEnv *jni, const request *req, thread_set *set);

/* Takes each thread's moment (thread_moment.h: frames up to max_depth, none when 0; owned monitors
 * when want_owned) and sets its facts' state to the moment's (a thread that ended before its
 * moment: GetThreadState's, TERMINATED when even that fails). Returns 0, or -1 when some lock
 * facts could not be collected. */
int thread_set_take(JNIEnv *jni, thread_set *set, jint max_depth, int want_owned);

/* thread_set_take for the threads [start, end) alone, with what is left of the request's
 * GetObjectMonitorUsage allowance (locks_collect). */
int thread_set_take_range(JNIEnv *jni, thread_set *set, size_t start, size_t end, jint max_depth, int want_owned,
                          int *usage_calls_left);

/* Fills natives (see native_ids.h), with their tasks' records (task_stat.h), and the facts' CPU
 * times (with usage, also apart and the allocated bytes), stamping when their reading started and
 * ended. */
void thread_set_find_nids(JNIEnv *jni, thread_set *set);

/* Stamps the end of the CPU reading again, after more CPU times were read for the answer (the
 * JVM's own threads: vm_threads_collect). */
void thread_set_cpu_read_done(thread_set *set);

/* "cpuRead": {"startNanos", "endNanos"}, the stamps: every CPU time of the answer was read between. */
void thread_set_write_cpu_read(json_writer *w, const thread_set *set);

/* With usage, "usage": [{"id", "userNanos", "systemNanos", "allocatedBytes"}], each figure
 * left out where unknown; nothing without. */
void thread_set_write_usage(json_writer *w, const thread_set *set);

void thread_set_free(JNIEnv *jni, thread_set *set);

/* Whether the request's "threads" list (all threads when it has none) names this Java id. */
int thread_set_wants(const request *req, jlong id);

#endif
