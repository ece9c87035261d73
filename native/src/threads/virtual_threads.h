/* Virtual threads (JDK 21+). JVMTI has no list of them, so they are found the way
 * Thread.dump_to_file finds them: by walking the JDK's thread containers
 * (jdk.internal.vm.ThreadContainers.root(), then each container's threads() and children()),
 * through JNI, which does not check module access. That sees every virtual thread the JDK tracks
 * (jdk.trackAllThreads, on by default), including those started before the agent attached; with
 * -Djdk.trackAllThreads=false the root container only counts the virtual threads started outside
 * another container (virtual_threads_root_count). Each container's streams are taken as arrays
 * (Stream.toArray: one call into Java per container). Nothing is held for the walk: no safepoint,
 * no suspension; a caller asks about each thread on its own (GetThreadState, GetStackTrace: valid
 * for a virtual thread whether mounted or not when can_support_virtual_threads is held). */
#ifndef JVMTICLI_VIRTUAL_THREADS_H
#define JVMTICLI_VIRTUAL_THREADS_H

#include <jvmti.h>

/* What the JDK's java.lang.VirtualThread looks like, as looked up once. */
typedef struct {
    jclass virtual_thread;   /* java.lang.VirtualThread, a global reference */
    jfieldID continuation;   /* Thread.cont: set while a continuation is mounted; NULL when not found */
    jfieldID carrier;        /* VirtualThread.carrierThread */
    jfieldID state;          /* VirtualThread.state */
    jint pinned;             /* VirtualThread.PINNED and TIMED_PINNED: -1 when not found */
    jint timed_pinned;
    jint parked;             /* VirtualThread.PARKED and TIMED_PARKED: -1 when not found */
    jint timed_parked;
    jint running;            /* VirtualThread.RUNNING: -1 when not found */
    jint blocking;           /* VirtualThread.BLOCKING (JDK 24+, where monitors unmount): -1 before */
} virtual_thread_layout;

/* Looks up what the walk needs, once. NULL, with *layout set; or why virtual threads cannot be listed. */
const char *virtual_threads_prepare(JNIEnv *jni, const virtual_thread_layout **layout);

/* ThreadContainers.root(), a local reference; NULL when the call failed. */
jobject virtual_threads_root(JNIEnv *jni);

/* How many virtual threads the root container holds as the JDK keeps them: the set of
 * TrackingRootContainer (*tracked = 1: the walk meets each), or CountingRootContainer's count
 * (jdk.trackAllThreads=false, *tracked = 0: the walk meets none of them). -1 when unknown. */
jlong virtual_threads_root_count(JNIEnv *jni, jobject root, int *tracked);

typedef struct {
    /* Called for each virtual thread met, a local reference; returns 1 when it keeps the reference
     * (at most kept_max at once) until flush. */
    int (*visit)(void *context, jthread thread);
    /* Called before the references kept go (at the end of each container's list); may be NULL. */
    void (*flush)(void *context);
    /* Whether to stop the walk now; may be NULL. */
    int (*stop)(void *context);
    void *context;
    jint kept_max;
    int skip_root_threads;   /* the root container's own threads are not visited (counted apart) */
} virtual_thread_visitor;

/* Visits every virtual thread of the root container and, depth first, of the containers under it.
 * 0, or -1 when a container's threads could not be listed (the walk then stopped there). */
int virtual_threads_walk(JNIEnv *jni, jobject root, const virtual_thread_visitor *v);

#endif
