/* Virtual threads (JDK 21+). JVMTI has no list of them, so they are found the way
 * Thread.dump_to_file finds them: by walking the JDK's thread containers
 * (jdk.internal.vm.ThreadContainers.root(), then each container's threads() and children()),
 * through JNI, which does not check module access. That sees every virtual thread the JDK tracks
 * (jdk.trackAllThreads, on by default), including those started before the agent attached.
 * Each container's streams are taken as arrays (Stream.toArray: one call into Java per container).
 * Nothing is held for the walk: no safepoint, no suspension; each thread is then asked about on
 * its own (GetThreadState, GetThreadListStackTraces of that thread alone: per-thread operations,
 * valid for a virtual thread whether mounted or not when can_support_virtual_threads is held). */
#ifndef JVMTICLI_VTHREADS_H
#define JVMTICLI_VTHREADS_H

#include <jni.h>

/* Drops the JNI references kept for the walk (agent shutdown). */
void vthreads_release(JNIEnv *jni);

#endif
