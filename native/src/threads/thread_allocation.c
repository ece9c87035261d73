#include "thread_allocation.h"

#include <stdint.h>

#include "jni_util.h"

static void unknown(jlong *out, size_t count) {
    for (size_t i = 0; i < count; i++) {
        out[i] = -1;
    }
}

int thread_allocation_read(JNIEnv *jni, const jlong *ids, size_t count, jlong *out) {
    unknown(out, count);
    if (count == 0 || count > INT32_MAX) {
        return count == 0 ? 0 : -1;
    }
    jclass factory = (*jni)->FindClass(jni, "java/lang/management/ManagementFactory");
    jclass bean_class = jni_failed(jni, factory) ? NULL : (*jni)->FindClass(jni, "com/sun/management/ThreadMXBean");
    jmethodID get_bean = NULL, get_bytes = NULL;
    if (!jni_failed(jni, bean_class)) {
        get_bean = (*jni)->GetStaticMethodID(jni, factory, "getThreadMXBean", "()Ljava/lang/management/ThreadMXBean;");
        get_bytes = get_bean == NULL ? NULL : (*jni)->GetMethodID(jni, bean_class, "getThreadAllocatedBytes", "([J)[J");
    }
    jobject bean = jni_failed(jni, get_bytes) ? NULL : (*jni)->CallStaticObjectMethod(jni, factory, get_bean);
    jlongArray asked = jni_failed(jni, bean) || !(*jni)->IsInstanceOf(jni, bean, bean_class) ? NULL : (*jni)->NewLongArray(jni, (jsize)count);
    jlongArray bytes = NULL;
    if (!jni_failed(jni, asked)) {
        (*jni)->SetLongArrayRegion(jni, asked, 0, (jsize)count, ids);
        bytes = (*jni)->CallObjectMethod(jni, bean, get_bytes, asked); /* UnsupportedOperationException: not counted */
    }
    int read = !jni_failed(jni, bytes) && (*jni)->GetArrayLength(jni, bytes) == (jsize)count;
    if (read) {
        (*jni)->GetLongArrayRegion(jni, bytes, 0, (jsize)count, out);
        read = !jni_cleared_exception(jni);
        if (!read) {
            unknown(out, count);
        }
    }
    jobject locals[] = { bytes, asked, bean, bean_class, factory };
    for (size_t i = 0; i < sizeof locals / sizeof locals[0]; i++) {
        if (locals[i] != NULL) {
            (*jni)->DeleteLocalRef(jni, locals[i]);
        }
    }
    return read ? 0 : -1;
}
