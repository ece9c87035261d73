#include "pause_totals.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "jni_util.h"

/* One GarbageCollectorMXBean's name and totals into out; returns 0, or -1. */
static int read_collector(JNIEnv *jni, jobject bean, jmethodID get_name, jmethodID get_count, jmethodID get_time,
                          collector_totals *out) {
    char *name = jni_call_string(jni, bean, get_name);
    if (name == NULL || jni_call_long(jni, bean, get_count, &out->count) != 0 || jni_call_long(jni, bean, get_time, &out->millis) != 0) {
        free(name);
        return -1;
    }
    size_t length = strlen(name);
    if (length >= sizeof out->name) {
        length = sizeof out->name - 1;
        while (length > 0 && ((unsigned char)name[length] & 0xC0) == 0x80) {
            length--; /* not inside a character */
        }
    }
    memcpy(out->name, name, length);
    out->name[length] = '\0';
    free(name);
    return 0;
}

/* ManagementFactory.getGarbageCollectorMXBeans(), each one's totals, at most PAUSE_TOTALS_COLLECTORS. */
static void read_collectors(JNIEnv *jni, pause_totals *out) {
    out->collector_count = 0;
    jclass factory = (*jni)->FindClass(jni, "java/lang/management/ManagementFactory");
    jclass list_class = jni_failed(jni, factory) ? NULL : (*jni)->FindClass(jni, "java/util/List");
    jclass manager_class = jni_failed(jni, list_class) ? NULL : (*jni)->FindClass(jni, "java/lang/management/MemoryManagerMXBean");
    jclass bean_class = jni_failed(jni, manager_class) ? NULL : (*jni)->FindClass(jni, "java/lang/management/GarbageCollectorMXBean");
    jmethodID get_beans = NULL, size = NULL, get = NULL, get_name = NULL, get_count = NULL, get_time = NULL;
    if (!jni_failed(jni, bean_class)) {
        get_beans = (*jni)->GetStaticMethodID(jni, factory, "getGarbageCollectorMXBeans", "()Ljava/util/List;");
        size = get_beans == NULL ? NULL : (*jni)->GetMethodID(jni, list_class, "size", "()I");
        get = size == NULL ? NULL : (*jni)->GetMethodID(jni, list_class, "get", "(I)Ljava/lang/Object;");
        get_name = get == NULL ? NULL : (*jni)->GetMethodID(jni, manager_class, "getName", "()Ljava/lang/String;");
        get_count = get_name == NULL ? NULL : (*jni)->GetMethodID(jni, bean_class, "getCollectionCount", "()J");
        get_time = get_count == NULL ? NULL : (*jni)->GetMethodID(jni, bean_class, "getCollectionTime", "()J");
    }
    jobject beans = jni_failed(jni, get_time) ? NULL : (*jni)->CallStaticObjectMethod(jni, factory, get_beans);
    jint bean_count = 0;
    if (!jni_failed(jni, beans) && jni_call_int(jni, beans, size, &bean_count) == 0) {
        for (jint i = 0; i < bean_count && out->collector_count < PAUSE_TOTALS_COLLECTORS; i++) {
            jobject bean = (*jni)->CallObjectMethod(jni, beans, get, i);
            if (jni_failed(jni, bean)) {
                break;
            }
            if (read_collector(jni, bean, get_name, get_count, get_time, &out->collectors[out->collector_count]) == 0) {
                out->collector_count++;
            }
            (*jni)->DeleteLocalRef(jni, bean);
        }
    }
    jobject locals[] = { beans, bean_class, manager_class, list_class, factory };
    for (size_t i = 0; i < sizeof locals / sizeof locals[0]; i++) {
        if (locals[i] != NULL) {
            (*jni)->DeleteLocalRef(jni, locals[i]);
        }
    }
}

void pause_totals_read(JNIEnv *jni, pause_totals *out) {
    struct timespec ts;
    out->nanos = clock_gettime(CLOCK_MONOTONIC, &ts) == 0 ? (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec : -1;
    out->has_safepoints = safepoint_totals_read(jni, &out->safepoints) == 0;
    read_collectors(jni, out);
}

void pause_totals_write(json_writer *w, const char *field, const pause_totals *totals) {
    json_begin_object_field(w, field);
    json_field_int(w, "nanos", totals->nanos);
    if (totals->has_safepoints) {
        json_begin_object_field(w, "safepoints");
        json_field_int(w, "count", totals->safepoints.count);
        json_field_int(w, "atSafepointMillis", totals->safepoints.at_safepoint_millis);
        json_field_int(w, "reachingMillis", totals->safepoints.reaching_millis);
        json_end_object(w);
    }
    json_begin_array_field(w, "collectors");
    for (size_t i = 0; i < totals->collector_count; i++) {
        json_begin_object(w);
        json_field_mutf8(w, "name", totals->collectors[i].name);
        json_field_int(w, "count", totals->collectors[i].count);
        json_field_int(w, "millis", totals->collectors[i].millis);
        json_end_object(w);
    }
    json_end_array(w);
    json_end_object(w);
}
