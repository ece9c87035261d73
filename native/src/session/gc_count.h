/* Counts the garbage collections that finish while an event session runs (GarbageCollectionFinish),
 * so a session can say how many happened during its window, and lets the agent thread wait for
 * the next one. The event comes once per GC pause: on ZGC and Shenandoah, and for a G1 concurrent
 * cycle's remark and cleanup, that is not a collection of the young generation. */
#ifndef JVMTICLI_GC_COUNT_H
#define JVMTICLI_GC_COUNT_H

#include <stdint.h>

/* Starts counting for one more session (the first takes the capability and turns the event on).
 * Returns the count so far, to subtract at the end, or -1 if collections cannot be counted. */
int64_t gc_count_begin(void);

/* The collections since begin's value, and stops counting for that session (the last turns the
 * event off and gives the capability back). -1 if begin returned -1. */
int64_t gc_count_end(int64_t began);

/* The collections finished so far, from any thread; it only grows while some session counts. */
int64_t gc_count_now(void);

/* Waits, while a session counts and for at most timeout_millis, until the count is past seen
 * (a value from gc_count_begin or gc_count_now): 1 if it is, 0 if not in time. Agent thread only;
 * holds no lock the caller could need. */
int gc_count_wait_past(int64_t seen, int64_t timeout_millis);

/* Destroys the monitor waiters sleep on, once no session counts (the agent's release). */
void gc_count_release(void);

#endif
