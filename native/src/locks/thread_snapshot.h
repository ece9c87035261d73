/* Lock facts from jdk.internal.vm.ThreadSnapshot (JDK 25+), what Thread.dump_to_file uses: for
 * one thread, platform or virtual, the monitors owned at each frame and the monitor it is blocked
 * entering or waits on. HotSpot takes it in a handshake with that thread alone (nothing when a
 * virtual thread is unmounted): no global safepoint, and no work that grows with the number of
 * threads or monitors in the JVM. The owner of the monitor a thread waits for is not part of it.
 * Older JDKs have no ThreadSnapshot: thread_snapshot_available says so. */
#ifndef JVMTICLI_THREAD_SNAPSHOT_H
#define JVMTICLI_THREAD_SNAPSHOT_H

#include <jni.h>
#include <jvmti.h>

#include "lock_facts.h"

/* 1 when this JVM has a ThreadSnapshot laid out as expected (looked up once per agent run). */
int thread_snapshot_available(JNIEnv *jni);

/* Fills f->owned, f->waiting/waits_for (owner_id is left as it is) and f->seen (the snapshot's state
 * and top frame, WITNESS_MAPPED when methods are given) from a snapshot of thread.
 * The snapshot leaves out hidden frames that JVMTI shows; when the methods of the thread's frames
 * (top first, count of them, taken just before) are given, owned depths are mapped onto those
 * frames, and a depth not found among them is count. Without them, depths are the snapshot's.
 * Returns 0 (also when the thread has ended), or -1. */
int thread_snapshot_locks(JNIEnv *jni, jthread thread, const jmethodID *methods, jint count, lock_facts *f);

/* Drops the JNI references kept (agent shutdown). */
void thread_snapshot_release(JNIEnv *jni);

#endif
