/* Every platform thread's state, frames, the monitors it owns, what it waits for and the ownable
 * synchronizers it owns, all of one moment: ThreadMXBean.dumpAllThreads(lockedMonitors,
 * lockedSynchronizers, depth), which HotSpot answers with one VM operation (VM_ThreadDump) that
 * walks the stacks and, for the synchronizers, the heap at the same safepoint, as jstack -l does
 * (VM_PrintThreads with its ConcurrentLocksDump). What `stacks -l` is made of: a list of
 * synchronizers of another moment than the frames fits only the threads that did not run in
 * between, and JVMTI's own heap walk (IterateOverInstancesOfClass) first deoptimizes every
 * compiled frame that holds an object escape analysis took apart (its EscapeBarrier: one
 * DeoptimizeFrame operation each), which this dump does not. Virtual threads are not in it.
 * Frames come as StackTraceElements: names and lines, not jmethodIDs; each distinct method is kept
 * once, in the order first seen. */
#ifndef JVMTICLI_ALL_THREADS_DUMP_H
#define JVMTICLI_ALL_THREADS_DUMP_H

#include <jni.h>
#include <stddef.h>
#include <stdint.h>

#include "key_index.h"
#include "lock_facts.h"

typedef struct {
    char *json;        /* frames_method_json */
    size_t json_len;
    int native;
    char *class_name;  /* as StackTraceElement names them; NULL when out of memory */
    char *method_name;
} dumped_method;

typedef struct {
    int32_t method;    /* index into the dump's methods */
    jint line;         /* -1 unknown, -2 native */
} dumped_frame;

typedef struct {
    jlong id;
    jint state;                 /* JVMTI state bits as the dump saw them (the detail bits from the top frame) */
    dumped_frame *frames;       /* top first, frame_count of them */
    jint frame_count;
    int truncated;              /* deeper than asked */
    lock_facts locks;           /* owned monitors with depths; what it is blocked on, waits on or is parked
                                   on, with the owner (a parked thread's wait is WAIT_PARK: the dump does
                                   not tell a lock from a condition) */
    lock_ref *synchronizers;    /* the ownable synchronizers it owns, synchronizer_count of them */
    jint synchronizer_count;
} dumped_thread;

typedef struct {
    dumped_thread *threads;
    size_t count;
    dumped_method *methods;
    size_t method_count;
    size_t method_capacity;
    key_index method_keys;      /* keys: method_key, see all_threads_dump.c */
} all_threads_dump;

/* Takes the dump, at most max_depth frames per thread. Returns 0, or -1 (then nothing needs
 * freeing). */
int all_threads_dump_take(JNIEnv *jni, jint max_depth, all_threads_dump *dump);

/* The thread with this Java id, NULL when the dump does not have it (it started after, or ended
 * before, the dump). */
const dumped_thread *all_threads_dump_find(const all_threads_dump *dump, jlong id);

void all_threads_dump_free(all_threads_dump *dump);

#endif
