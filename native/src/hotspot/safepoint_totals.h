/* The safepoints the JVM has counted since it started, and the time spent reaching and at them:
 * HotSpot's HotspotRuntimeMBean (sun.management.ManagementFactoryHelper.getHotspotRuntimeMBean()),
 * the counters behind -Xlog:safepoint, in whole milliseconds. Read before and after an operation
 * that stops the JVM (a histogram, a heap dump), their difference is how long it was paused. */
#ifndef JVMTICLI_SAFEPOINT_TOTALS_H
#define JVMTICLI_SAFEPOINT_TOTALS_H

#include <jni.h>
#include <stdint.h>

#include "json.h"

typedef struct {
    jlong count;
    jlong at_safepoint_millis;  /* getTotalSafepointTime: at the safepoint, the VM operation */
    jlong reaching_millis;      /* getSafepointSyncTime: bringing the threads to it */
} safepoint_totals;

/* 0, or -1 when the JVM does not count them (-XX:-UsePerfData) or the bean cannot be read. */
int safepoint_totals_read(JNIEnv *jni, safepoint_totals *totals);

/* The same, read until they stayed the same for a few milliseconds: HotSpot lets the threads go
 * at the end of a safepoint before it adds that safepoint's time to the totals. */
int safepoint_totals_read_settled(JNIEnv *jni, safepoint_totals *totals);


/* "safepoints": {"count", "atSafepointMillis", "reachingMillis"} from before to after. */
void safepoint_totals_write(json_writer *w, const safepoint_totals *before, const safepoint_totals *after);

/* The same for the pause of one operation that took elapsed_nanos: its safepoint lies within it,
 * so totals that came out longer were not settled after all (they held an earlier pause's time):
 * then "earlierPauseIncluded": true in place of "safepoints", as the pause cannot be told. */
void safepoint_totals_write_within(json_writer *w, const safepoint_totals *before, const safepoint_totals *after, int64_t elapsed_nanos);

#endif
