/* Native thread facts (the `tid`, `nid` and OS-thread state of a thread dump's header), which
 * JVMTI does not give: HotSpot's own records serve them (hotspot_threads.h); on another JVM, the
 * OS thread's name in /proc/self/task, where it names one thread only. What this file checks
 * either way: each nid is a task of this process and no two threads have the same one. */
#ifndef JVMTICLI_NATIVE_IDS_H
#define JVMTICLI_NATIVE_IDS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "task_stat.h"

typedef struct {
    pid_t nid;            /* the kernel's thread id; 0 when unknown */
    const char *os_state; /* what jstack prints after the nid ("waiting on condition"); NULL when unknown */
    uint64_t address;     /* HotSpot's JavaThread (jstack's tid); 0 when unknown */
    int has_task;         /* task holds the kernel's record of the nid's task */
    task_stat task;
    int has_cpu;          /* cpu_nanos holds the CPU time of the nid's task, read while it was the thread's */
    int64_t cpu_nanos;
    int has_cpu_apart;    /* cpu_apart holds the nid's task's user and system CPU (task_stat.h), when asked for */
    task_cpu cpu_apart;
    int own_task;         /* the nid was proven a task of this process before, and the thread has not ended since */
} native_thread;

/* The most of a thread's name the kernel keeps (/proc/self/task/<nid>/comm). */
#define NATIVE_IDS_COMM_BYTES 15

/* The kernel's name of one of this process's tasks. Returns 0, or -1 when the task is gone. */
int native_ids_comm(pid_t tid, char comm[NATIVE_IDS_COMM_BYTES + 1]);

/* Sets out[i].nid for each thread whose name (modified UTF-8, as JVMTI gives it; NULL when
 * unknown) tells its task for certain: the whole name fits the kernel's 15 bytes, no other thread
 * asked about has the same first 15 bytes, and exactly one task of this process is so named. The
 * others stay 0. */
void native_ids_from_names(const char *const *names, size_t count, native_thread *out);

/* Clears every entry whose nid is not a task of this process, or is also another entry's; marks
 * the others own_task. An entry marked own_task already is not asked of the kernel again. */
void native_ids_keep_own(native_thread *threads, size_t count);

#endif
