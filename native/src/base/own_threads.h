/* The agent's own Java threads: its server thread and the helpers its sessions start (contention's
 * owner look-ups and its parks' owner reads, alloc --live's pruner). They are never the target's
 * threads: thread lists mark them as the agent's, so that no table, group or ranking of the
 * target's counts them. Registered, removed and asked on the agent's thread only. */
#ifndef JVMTICLI_OWN_THREADS_H
#define JVMTICLI_OWN_THREADS_H

#include <jni.h>
#include <jvmti.h>

/* Registers a helper (a global ref the caller keeps until own_threads_remove); 0, or -1 when the
 * table is full (raise OWN_THREADS_MAX). */
int own_threads_add(jthread helper);

/* Forgets a helper before its global ref is deleted. */
void own_threads_remove(jthread helper);

/* Whether thread is the agent's server thread or one of its registered helpers. */
int own_threads_contains(JNIEnv *jni, jthread thread);

/* Stops a registered helper: sets *run to 0 under lock and wakes it, then waits up to 5 s for it to
 * set *done as it returns. Once it has, forgets it (removed, its global ref deleted, *helper NULL)
 * and returns 0; -1 when it has not, and what it uses must outlive it. */
int own_threads_stop(JNIEnv *jni, jrawMonitorID lock, int *run, const int *done, jthread *helper);

#endif
