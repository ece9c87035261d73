/* The sampled objects of `alloc --live` (alloc.c's live mode) and how many collections each has
 * survived: a weak global ref per sample in a table of LIVE_CAPACITY entries, allocated at start;
 * a pruner thread of the agent's frees the entries of collected objects after each collection.
 * A sample that finds the table full, or whose ref cannot be made, is counted, never lost quietly.
 * The table follows at most a budget of sampled bytes at once: a weak ref can keep its object in
 * the heap longer than the application does (G1 does not reclaim a humongous object early, ZGC's
 * young collections mark through weak refs), so a sample past it is counted and not followed, as
 * is one larger than the largest the client asks to follow (G1's humongous objects live in its old
 * generation from the start, where the young collections that clear the sentinels never look).
 *
 * Threads: live_ref runs in the sampling callback outside any lock; live_put under the session's
 * lock (the one live_open is given); everything else on the agent thread, or on the pruner. */
#ifndef JVMTICLI_ALLOC_LIVE_H
#define JVMTICLI_ALLOC_LIVE_H

#include <jni.h>
#include <stdint.h>

#include "aggregate.h"
#include "json.h"

#define LIVE_CAPACITY 65536

/* Allocates the table and starts the pruner; lock guards the table as it guards the stacks.
 * cleared_in_pauses: the collector clears weak refs inside its pauses (Serial, Parallel, G1), so a
 * collection counts as soon as it is seen. budget: the sampled bytes followed at once; largest:
 * the largest sample followed, 0 for any. 0, or -1 with *failure set to a static message
 * (nothing is left allocated). */
int live_open(JNIEnv *jni, jrawMonitorID lock, int cleared_in_pauses, uint64_t budget, uint64_t largest,
              const char **failure);

/* In the sampling callback, before taking the lock: a weak ref to object, of bytes, or NULL
 * (counted) when it is larger than the largest followed, an exception is pending on the thread or
 * the ref cannot be made. */
jweak live_ref(JNIEnv *jni, jobject object, uint64_t bytes);

/* Under the lock: keeps the sample. 0, or -1 when the table is full or its bytes would pass the
 * budget (counted): the caller then deletes ref, after leaving the lock. */
int live_put(jweak ref, const stack_entry *stack, uint64_t bytes);

/* 1 on the pruner thread: what it allocates itself is no sample. */
int live_own_thread(void);

/* Stops the pruner, once the callbacks are out (a NULL jni: no JNIEnv, it is left running). */
void live_quiesce(JNIEnv *jni);

/* On the agent thread after live_quiesce: calls visit for each sampled object still alive, with
 * the number of collections it is known to have survived and its weak ref (the table's, valid
 * until live_close). */
void live_survivors(JNIEnv *jni, void (*visit)(void *arg, const stack_entry *stack, uint64_t bytes, uint32_t age, jweak ref), void *arg);

/* Writes the table's counters as keys of the object being written. */
void live_write_counts(json_writer *w);

/* Deletes every weak ref and frees the table; -1 when it must stay (the pruner still runs, or jni
 * is NULL). */
int live_close(JNIEnv *jni);

#endif
