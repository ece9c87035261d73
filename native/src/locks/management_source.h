/* The "management" source of lock facts (locks.h): java.lang.management.ThreadMXBean.getThreadInfo
 * for small batches of threads, each batch one short safepoint; never the all-threads dump with
 * synchronizers, which walks the heap. Each ThreadInfo also says what it saw of its thread's state
 * and top frame (lock_witness). */
#ifndef JVMTICLI_MANAGEMENT_SOURCE_H
#define JVMTICLI_MANAGEMENT_SOURCE_H

#include <jni.h>
#include <stddef.h>

#include "lock_facts.h"

/* Looks up what reading a ThreadInfo's state needs; ThreadMXBean itself is looked up when first
 * asked (a start-up agent may never need it). Returns 0 or -1. */
int management_source_prepare(JNIEnv *jni);

/* ThreadMXBean answers for the subjects that need it (lock_subject_needs_thread_info) whose flag in
 * chosen is set (all when chosen is NULL), walking at most max_depth frames of each. Returns 0,
 * or -1 when some facts could not be collected. */
int management_source_collect(JNIEnv *jni, const lock_subject *subjects, size_t count, const unsigned char *chosen,
                              jint max_depth, int want_owned, lock_facts *facts);

/* Drops the bean's global reference and every handle (agent shutdown). */
void management_source_release(JNIEnv *jni);

#endif
