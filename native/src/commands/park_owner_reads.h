/* The owners' stacks of contention's parks (parks.c), read by a helper thread of the agent's,
 * `jvmti-cli park owners`, never by the thread that parks. A virtual thread's park may begin inside
 * the JDK's own mounting machinery, and the one run that read a virtual owner's stack from the
 * parking thread's probe stalled a JDK 21 target for seconds. The helper is a platform thread
 * outside all of it, from which GetStackTrace reads any thread, a virtual one mounted or not (JDK
 * 21+). So the probe only queues a read (global refs of the blocker and its owner) and goes on to
 * park; the helper reads the owner's stack and hands it to the session, which keeps it only when
 * the owner still owns the blocker. A read that finds the queue full is dropped and counted.
 *
 * Threads: owner_reads_request runs in the probes, inside the session's gate; everything else on
 * the agent thread, but for the keeper, which runs on the helper. */
#ifndef JVMTICLI_PARK_OWNER_READS_H
#define JVMTICLI_PARK_OWNER_READS_H

#include <jni.h>
#include <jvmti.h>
#include <stdint.h>

/* What the helper does with a stack it read: owner's, as it waited on blocker; local refs it makes
 * are freed after it returns. */
typedef void (*owner_stack_keeper)(JNIEnv *jni, jobject blocker, jthread owner, const jvmtiFrameInfo *frames, jint depth);

/* Starts the helper. 0, or -1 with *failure set to a static message (nothing is left behind). */
int owner_reads_open(JNIEnv *jni, owner_stack_keeper keep, const char **failure);

/* In a probe: queues a read of owner's stack, or counts it dropped when the queue is full. */
void owner_reads_request(JNIEnv *jni, jobject blocker, jthread owner);

/* Once no probe runs: stops the helper (nothing when jni is NULL) and drops the reads still queued. */
void owner_reads_quiesce(JNIEnv *jni);

/* 0, or -1 when the helper did not stop: what it uses must then outlive the session. */
int owner_reads_close(void);

/* The reads dropped since open: the queue was full or the refs could not be made. */
uint64_t owner_reads_dropped(void);

#endif
