/* How long the JVM was paused: its safepoint totals, read through JNI before and after. */
#ifndef JVMTICLI_SAFEPOINT_TOTALS_H
#define JVMTICLI_SAFEPOINT_TOTALS_H

#include <jni.h>

#include "json.h"

typedef struct {
    jlong count;
    jlong at_safepoint_millis;  /* getTotalSafepointTime: at the safepoint, the VM operation */
    jlong reaching_millis;      /* getSafepointSyncTime: bringing the threads to it */
} safepoint_totals;

/* sun.management.ManagementFactoryHelper.getHotspotRuntimeMBean()'s totals; -1 when not there. */
int safepoint_totals_read(JNIEnv *jni, safepoint_totals *totals);

/* The totals once two reads a little apart agree (a safepoint's time is added after it ends). */
int safepoint_totals_read_settled(JNIEnv *jni, safepoint_totals *totals);

/* Writes the difference as the "safepoints" object: count, atSafepointMillis, reachingMillis. */
void safepoint_totals_write(json_writer *w, const safepoint_totals *before, const safepoint_totals *after);

#endif
