/* What a parked thread waits for, told by the class of its park blocker (LockSupport.getBlocker):
 * - a signal: an AbstractQueuedSynchronizer's or AbstractQueuedLongSynchronizer's ConditionObject
 *   (Condition.await*: an idle pool waiting for work; like Object.wait, it has no owner and does
 *   not contend for the lock, which it gave up while it waits);
 * - to acquire a synchronizer: the blocker is an AbstractQueuedSynchronizer or
 *   AbstractQueuedLongSynchronizer (ReentrantLock, ReentrantReadWriteLock, Semaphore,
 *   CountDownLatch, ... and a condition waiter taking its lock back once signalled) or a
 *   StampedLock; exclusively (a lock) or shared (a latch, semaphore permits, a read lock), as the
 *   thread's node in the synchronizer's wait queue says, read as fields from the tail (JDK 14+:
 *   the node's class; before: its nextWaiter marker); the mode is not known when the node is not
 *   found or the queue is not one read here (StampedLock before JDK 14);
 * - something else (a FutureTask, a queue's node, a pool): parked on it, neither. */
#ifndef JVMTICLI_PARK_BLOCKER_H
#define JVMTICLI_PARK_BLOCKER_H

#include <jni.h>

#include "lock_facts.h"

/* WAIT_SIGNAL, a WAIT_ACQUIRE or WAIT_PARK for a non-NULL blocker that thread is parked on. */
wait_kind park_blocker_kind(JNIEnv *jni, jobject blocker, jthread thread);

/* Drops the class references kept (agent shutdown). */
void park_blocker_release(JNIEnv *jni);

#endif
