/* The JVM's own threads, which JVMTI does not show: the JavaThreads it hides (compiler threads,
 * Service Thread, Monitor Deflation Thread, ...) and the non-Java threads (VM Thread, GC workers,
 * concurrent GC threads, VM Periodic Task Thread, ...). Where each fact comes from:
 *  - name and CPU time: HotSpot's list of its internal threads, sun.management.HotspotThread's
 *    getInternalThreadTimes0 (what jmm_GetInternalThreadTimes gives: the hidden JavaThreads in the
 *    order of the threads list, then the non-Java threads in the order of their list; taken under
 *    Threads_lock, no safepoint), called through JNI;
 *  - which JavaThread each hidden one is: ThreadsSMRSupport::_java_thread_list (vm_structs.h)
 *    less the threads JVMTI shows, matched to those names in order, each pair checked by the
 *    kernel's 15-byte name of its OS thread; and which non-Java thread: the list
 *    NonJavaThread::_the_list (elf_symbol.h), matched the same way;
 *  - nid, OS state and tid: each Thread's OSThread (hotspot_threads.h); os_prio and start time:
 *    /proc/self/task (task_stat.h); a hidden thread's id, daemon, priority and state: its
 *    java.lang.Thread (thread_object.h).
 * Where a match cannot be proven, the name and CPU stay and the native facts are left out, but a
 * name that tells its task for certain among the kernel's names (native_ids.h). */
#ifndef JVMTICLI_VM_THREADS_H
#define JVMTICLI_VM_THREADS_H

#include <jni.h>
#include <stddef.h>

#include "json.h"
#include "native_ids.h"
#include "thread_object.h"

typedef enum { VM_THREAD_UNPLACED, VM_THREAD_HIDDEN_JAVA, VM_THREAD_NON_JAVA } vm_thread_kind;

typedef struct {
    char *name;                 /* HotSpot's name, modified UTF-8, malloc'd; never NULL */
    jlong cpu_nanos;            /* -1 when unknown */
    vm_thread_kind kind;        /* UNPLACED: not known which */
    int has_object;             /* object holds the java.lang.Thread's facts (HIDDEN_JAVA only) */
    thread_object_facts object;
    native_thread native;       /* zero where unknown */
} vm_thread;

typedef struct {
    vm_thread *threads;
    size_t count;
} vm_thread_list;

/* The JVM's own threads; visible are the native facts of the threads JVMTI shows (their tid
 * tells them apart from the hidden ones). Returns 0, or -1 when this JVM does not name its
 * internal threads (no HotSpot, or no java.management): then the list is empty. */
int vm_threads_collect(JNIEnv *jni, const native_thread *visible, size_t visible_count, vm_thread_list *out);

/* Writes "vmThreads": [...] as a member of the object being written. */
void vm_threads_write(json_writer *w, const vm_thread_list *list);

/* Reads the user and system CPU apart (task_stat.h) of each thread whose task is known. */
void vm_threads_read_usage(vm_thread_list *list);

/* Writes "vmUsage": [{"nid", "userNanos", "systemNanos"}], those vm_threads_read_usage read. */
void vm_threads_write_usage(json_writer *w, const vm_thread_list *list);

void vm_threads_free(vm_thread_list *list);

/* Drops the JNI references kept (agent shutdown). */
void vm_threads_release(JNIEnv *jni);

#endif
