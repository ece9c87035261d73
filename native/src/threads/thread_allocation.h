/* The bytes each Java thread has allocated in the heap since it started, as HotSpot counts them:
 * com.sun.management.ThreadMXBean.getThreadAllocatedBytes(long[]), what a thread filled of its
 * TLABs and allocated outside them, read without a safepoint. Called through JNI; it never turns
 * the JVM's counting on (-XX:-... or setThreadAllocatedMemoryEnabled(false) leaves it off). */
#ifndef JVMTICLI_THREAD_ALLOCATION_H
#define JVMTICLI_THREAD_ALLOCATION_H

#include <jni.h>
#include <stddef.h>

/* out[i] for the thread whose Java id is ids[i]: its bytes, or -1 when unknown (ended, or not
 * counted). Returns 0, or -1 when this JVM does not count them (then every out[i] is -1). */
int thread_allocation_read(JNIEnv *jni, const jlong *ids, size_t count, jlong *out);

#endif
