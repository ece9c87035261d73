/* Counts the garbage collections that finish while an event session runs (GarbageCollectionFinish),
 * so a session can say how many happened during its window. */
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

#endif
