#include "jni_util.h"

int jni_cleared_exception(JNIEnv *jni) {
    if ((*jni)->ExceptionCheck(jni)) {
        (*jni)->ExceptionClear(jni);
        return 1;
    }
    return 0;
}

int jni_failed(JNIEnv *jni, const void *value) {
    return jni_cleared_exception(jni) || value == NULL;
}

jclass jni_global_class(JNIEnv *jni, const char *name) {
    jclass local = (*jni)->FindClass(jni, name);
    if (jni_failed(jni, local)) {
        return NULL;
    }
    jclass global = (*jni)->NewGlobalRef(jni, local);
    (*jni)->DeleteLocalRef(jni, local);
    return global;
}
