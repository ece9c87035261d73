/* Small JNI helpers the agent's JNI-heavy files share. */
#ifndef JVMTICLI_JNI_UTIL_H
#define JVMTICLI_JNI_UTIL_H

#include <jni.h>

/* Clears a pending Java exception; returns 1 if there was one. */
int jni_cleared_exception(JNIEnv *jni);

/* A JNI call failed when it threw or returned NULL (the exception is cleared). */
int jni_failed(JNIEnv *jni, const void *value);

/* A global reference to the named class, or NULL. */
jclass jni_global_class(JNIEnv *jni, const char *name);

#endif
