/* The JVM's own pause totals since it started, for a difference over an interval: its safepoints
 * (HotSpot's HotspotRuntimeMBean, the counters behind -Xlog:safepoint, in whole milliseconds) and
 * each garbage collector's collections (GarbageCollectorMXBean: the count, and the time as the
 * collector counts it: its pauses for a stop-the-world one, its cycles for a concurrent one such as
 * "ZGC Cycles"). Read through JNI, in the thread that asks. */
#ifndef JVMTICLI_PAUSE_TOTALS_H
#define JVMTICLI_PAUSE_TOTALS_H

#include <jni.h>
#include <stddef.h>
#include <stdint.h>

#include "json.h"
#include "safepoint_totals.h"

#define PAUSE_TOTALS_COLLECTORS 8       /* HotSpot's collectors have two or three beans */
#define PAUSE_TOTALS_NAME_BYTES 64

typedef struct {
    char name[PAUSE_TOTALS_NAME_BYTES]; /* modified UTF-8, cut to fit */
    jlong count;
    jlong millis;
} collector_totals;

typedef struct {
    int64_t nanos;                      /* CLOCK_MONOTONIC when read, -1 when the clock could not be */
    int has_safepoints;
    safepoint_totals safepoints;
    size_t collector_count;
    collector_totals collectors[PAUSE_TOTALS_COLLECTORS];
} pause_totals;

/* Reads both; what this JVM does not count is left out (has_safepoints 0, no collectors). */
void pause_totals_read(JNIEnv *jni, pause_totals *out);

/* Writes the totals as the object member field: {"nanos", "safepoints": {"count",
 * "atSafepointMillis", "reachingMillis"}, "collectors": [{"name", "count", "millis"}]}. */
void pause_totals_write(json_writer *w, const char *field, const pause_totals *totals);

#endif
