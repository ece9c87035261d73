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

/* What a String getter of target returns, as a malloc'd modified UTF-8 copy; NULL when target is
 * NULL, the getter returns null or throws, or memory runs out. */
char *jni_call_string(JNIEnv *jni, jobject target, jmethodID getter);

#endif
