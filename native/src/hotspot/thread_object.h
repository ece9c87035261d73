/* The java.lang.Thread facts jstack prints of a JavaThread that JVMTI hides (compiler threads,
 * Service Thread, Monitor Deflation Thread, ...): no JNI reference to its Thread object can be had
 * (GetAllThreads, Thread.getAllThreads and thread groups leave it out), so the object is read in
 * memory, where JavaThread::_threadObj says it is, at the field offsets Unsafe gives. A read is
 * kept only when it proves itself: the object's eetop is the JavaThread it was reached from, and
 * every reference followed is unchanged after the reads (a collector that moved the object
 * meanwhile changed it). A collector whose references are not plain addresses (ZGC's colored
 * pointers) fails that proof, and then the facts are unknown. */
#ifndef JVMTICLI_THREAD_OBJECT_H
#define JVMTICLI_THREAD_OBJECT_H

#include <jni.h>
#include <stdint.h>

typedef struct {
    jlong id;          /* Thread.tid */
    jboolean daemon;
    jint priority;
    jint status;       /* Thread.threadStatus: JVMTI thread state bits */
} thread_object_facts;

/* Returns 0, or -1 when the facts of the JavaThread at java_thread could not be read for certain. */
int thread_object_read(JNIEnv *jni, uintptr_t java_thread, thread_object_facts *out);

#endif
