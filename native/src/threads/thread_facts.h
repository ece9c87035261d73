/* What every command says about a thread: id, name, state, daemon, priority, group, CPU. */
#ifndef JVMTICLI_THREAD_FACTS_H
#define JVMTICLI_THREAD_FACTS_H

#include <jni.h>
#include <jvmti.h>

#include "json.h"
#include "native_ids.h"

typedef struct {
    jlong id;          /* java.lang.Thread.getId() */
    char *name;        /* modified UTF-8, malloc'd; NULL when it could not be read */
    char *group;       /* modified UTF-8, malloc'd, NULL once terminated */
    jint priority;
    jboolean daemon;
    jint state;        /* GetThreadState bits, set by the caller: see thread_facts_get */
    jlong cpu_nanos;   /* -1 when unknown: see thread_facts_read_cpu */
    int is_agent;      /* the agent's own thread */
} thread_facts;

/* Fills facts for a live thread but its state (left 0), which the caller takes with the thread's
 * frames (thread_moment.h) or alone, and its CPU time (-1), which HotSpot's records give with the
 * native ids (thread_set_find_nids), else thread_facts_read_cpu: from JDK 21 on each JVMTI call
 * about a platform thread costs a walk of the list of all threads. Returns JVMTI_ERROR_NONE or the
 * first error (then nothing needs freeing). */
jvmtiError thread_facts_get(JNIEnv *jni, jthread thread, thread_facts *facts);

/* Sets facts->cpu_nanos to the thread's CPU time from JVMTI, -1 when it cannot tell. */
void thread_facts_read_cpu(jthread thread, thread_facts *facts);

void thread_facts_free(thread_facts *facts);

/* Writes the facts and the native ones (NULL for a virtual thread: it has none) as fields of the
 * JSON object being written. */
void thread_facts_write(json_writer *w, const thread_facts *facts, const native_thread *native);

/* Writes a thread's native facts, "nid" always (0: unknown), the others where known. */
void thread_facts_write_native(json_writer *w, const native_thread *native);

/* Java thread id of a thread (-1 when the call fails). */
jlong thread_java_id(JNIEnv *jni, jthread thread);

#endif
