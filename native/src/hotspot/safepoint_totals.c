#include "safepoint_totals.h"

#include <time.h>

#include "agent.h"
#include "jni_util.h"

/* Until JDK 13, HotSpot's total safepoint time ran from a safepoint's begin, so it held the time
 * to reach it too (sun.rt.safepointTime against -Xlog:safepoint's "Total time for which application
 * threads were stopped" on JDK 11); from 13 on it is the time at the safepoint only. JVMTI's major
 * version is the JDK's feature version since JDK 9. */
static int total_includes_reaching(void) {
    jint version;
    return (*the_agent.jvmti)->GetVersionNumber(the_agent.jvmti, &version) == JVMTI_ERROR_NONE
            && ((version & JVMTI_VERSION_MASK_MAJOR) >> JVMTI_VERSION_SHIFT_MAJOR) < 13;
}

/* sun.management.ManagementFactoryHelper.getHotspotRuntimeMBean()'s totals; -1 when not there. */
int safepoint_totals_read(JNIEnv *jni, safepoint_totals *totals) {
    jclass helper = (*jni)->FindClass(jni, "sun/management/ManagementFactoryHelper");
    jclass bean_class = helper == NULL || jni_cleared_exception(jni) ? NULL : (*jni)->FindClass(jni, "sun/management/HotspotRuntimeMBean");
    if (jni_failed(jni, bean_class)) {
        if (helper != NULL) {
            (*jni)->DeleteLocalRef(jni, helper);
        }
        return -1;
    }
    jmethodID get_bean = (*jni)->GetStaticMethodID(jni, helper, "getHotspotRuntimeMBean", "()Lsun/management/HotspotRuntimeMBean;");
    jmethodID get_count = get_bean == NULL ? NULL : (*jni)->GetMethodID(jni, bean_class, "getSafepointCount", "()J");
    jmethodID get_time = get_count == NULL ? NULL : (*jni)->GetMethodID(jni, bean_class, "getTotalSafepointTime", "()J");
    jmethodID get_sync = get_time == NULL ? NULL : (*jni)->GetMethodID(jni, bean_class, "getSafepointSyncTime", "()J");
    jobject bean = jni_failed(jni, get_sync) ? NULL : (*jni)->CallStaticObjectMethod(jni, helper, get_bean);
    int failed = jni_failed(jni, bean)
            || jni_call_long(jni, bean, get_count, &totals->count) != 0
            || jni_call_long(jni, bean, get_time, &totals->at_safepoint_millis) != 0
            || jni_call_long(jni, bean, get_sync, &totals->reaching_millis) != 0
            || totals->at_safepoint_millis < 0 || totals->reaching_millis < 0; /* -1: the JVM runs without perf data */
    if (!failed && total_includes_reaching()) {
        /* both in whole ms, each rounded down: the time at them can come out 1 ms off */
        totals->at_safepoint_millis = totals->at_safepoint_millis > totals->reaching_millis
                ? totals->at_safepoint_millis - totals->reaching_millis : 0;
    }
    if (bean != NULL) {
        (*jni)->DeleteLocalRef(jni, bean);
    }
    (*jni)->DeleteLocalRef(jni, bean_class);
    (*jni)->DeleteLocalRef(jni, helper);
    return failed ? -1 : 0;
}

/* HotSpot lets the threads go at the end of a safepoint before it adds that safepoint's time to
 * the totals (SafepointSynchronize::end), while its count went up when it began: totals read right
 * after a pause (the GC just waited for) can lack its time, which the next read would then count as
 * the histogram's. On a loaded machine the VM thread can be kept off a CPU for milliseconds in
 * between, so the totals count as settled only once they stayed the same for SETTLE_SPAN_MILLIS,
 * read every SETTLE_MILLIS, at most SETTLE_READS times (a JVM that keeps starting safepoints may
 * never be still). What still slips through, the caller catches (a pause longer than its command). */
#define SETTLE_MILLIS 2
#define SETTLE_SPAN_MILLIS 10
#define SETTLE_READS 50

static long long monotonic_nanos(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return now.tv_sec * 1000000000LL + now.tv_nsec;
}

int safepoint_totals_read_settled(JNIEnv *jni, safepoint_totals *totals) {
    if (safepoint_totals_read(jni, totals) != 0) {
        return -1;
    }
    long long same_since = monotonic_nanos();
    for (int i = 1; i < SETTLE_READS && monotonic_nanos() - same_since < SETTLE_SPAN_MILLIS * 1000000LL; i++) {
        struct timespec pause = { 0, SETTLE_MILLIS * 1000000L };
        nanosleep(&pause, NULL);
        safepoint_totals again;
        if (safepoint_totals_read(jni, &again) != 0) {
            return -1;
        }
        if (again.count != totals->count || again.at_safepoint_millis != totals->at_safepoint_millis
                || again.reaching_millis != totals->reaching_millis) {
            same_since = monotonic_nanos();
        }
        *totals = again;
    }
    return 0;
}

void safepoint_totals_write(json_writer *w, const safepoint_totals *before, const safepoint_totals *after) {
    json_begin_object_field(w, "safepoints");
    json_field_int(w, "count", after->count - before->count);
    json_field_int(w, "atSafepointMillis", after->at_safepoint_millis - before->at_safepoint_millis);
    json_field_int(w, "reachingMillis", after->reaching_millis - before->reaching_millis);
    json_end_object(w);
}

void safepoint_totals_write_within(json_writer *w, const safepoint_totals *before, const safepoint_totals *after, int64_t elapsed_nanos) {
    jlong paused = after->at_safepoint_millis - before->at_safepoint_millis + after->reaching_millis - before->reaching_millis;
    if (paused > elapsed_nanos / 1000000 + 3) { /* + 3: each total is rounded down to a whole ms */
        json_field_bool(w, "earlierPauseIncluded", 1);
    } else {
        safepoint_totals_write(w, before, after);
    }
}
