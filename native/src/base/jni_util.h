/* Small JNI helpers the agent's JNI-heavy files share. */
#ifndef JVMTICLI_JNI_UTIL_H
#define JVMTICLI_JNI_UTIL_H

#include <jni.h>
#include <jvmti.h>

/* Clears a pending Java exception; returns 1 if there was one. */
int jni_cleared_exception(JNIEnv *jni);

/* A JNI call failed when it threw or returned NULL (the exception is cleared). */
int jni_failed(JNIEnv *jni, const void *value);

/* Stores what a no-argument getter of target returns and returns 0; returns -1 when it throws
 * (the exception is cleared). -Xcheck:jni requires an exception check after every Call*Method,
 * before the next JNI call. */
int jni_call_int(JNIEnv *jni, jobject target, jmethodID getter, jint *value);
int jni_call_boolean(JNIEnv *jni, jobject target, jmethodID getter, jboolean *value);
int jni_call_long(JNIEnv *jni, jobject target, jmethodID getter, jlong *value);

/* The local references a command may hold without asking for more room: dispatch gives each
 * command a local frame of this capacity. */
#define JNI_COMMAND_LOCALS 32

/* Says that count more local references are live: JVMTI functions that return objects
 * (GetAllThreads, GetObjectMonitorUsage, ...) create them as local references, past the 16 JNI
 * guarantees, and -Xcheck:jni warns at the next JNI call unless room was made for them. Call it
 * right after such a function, before any other JNI call. Room is asked for count next to the
 * command's own JNI_COMMAND_LOCALS: HotSpot's checker compares the capacity asked with the
 * frame's whole plan, not with what it holds, so asking for count alone does nothing while count
 * is below the command's frame (62 threads in a frame of 32 warned at every command). */
void jni_reserve_locals(JNIEnv *jni, jint count);

/* A global reference to a new java.lang.Thread of that name, for RunAgentThread; NULL on failure
 * (the exception is cleared). */
jobject jni_new_thread(JNIEnv *jni, const char *name);

/* A global reference to the named class, or NULL. */
jclass jni_global_class(JNIEnv *jni, const char *name);

/* What a String getter of target returns, as a malloc'd modified UTF-8 copy; NULL when target is
 * NULL, the getter returns null or throws, or memory runs out. */
char *jni_call_string(JNIEnv *jni, jobject target, jmethodID getter);

/* The same for a String field of target. */
char *jni_string_field(JNIEnv *jni, jobject target, jfieldID field);

/* A value a getter returns, read from the field the getter returns where that field was found: a
 * field read costs a fraction of a call into Java (and a getter of an array copies it). field is
 * NULL when the class has no such field (another JDK's). */
typedef struct {
    jfieldID field;
    jmethodID getter;
} jni_accessor;

/* Finds the getter, named getter and of type "()" type, and the field, named field and of that
 * type; returns -1 when the getter is missing (the field may be, its exception cleared). */
int jni_accessor_find(JNIEnv *jni, jclass klass, const char *getter, const char *field, const char *type, jni_accessor *out);

/* The value, as a field read or a getter's call; a getter may throw: check afterwards, as after
 * any Call*Method (jni_failed, jni_cleared_exception). */
jobject jni_read_object(JNIEnv *jni, jobject target, const jni_accessor *value);
jint jni_read_int(JNIEnv *jni, jobject target, const jni_accessor *value);
jlong jni_read_long(JNIEnv *jni, jobject target, const jni_accessor *value);

/* A String value as a malloc'd modified UTF-8 copy, as jni_call_string makes it. */
char *jni_read_string(JNIEnv *jni, jobject target, const jni_accessor *value);

/* ClassLoader.getPlatformClassLoader() as a local reference, NULL when it cannot be had. */
jobject jni_platform_class_loader(JNIEnv *jni);

/* 1 when the boot or the platform loader (platform, from jni_platform_class_loader) defined klass,
 * 0 for another loader, -1 when it cannot be told. */
int jni_defined_by_jdk(JNIEnv *jni, jvmtiEnv *jvmti, jclass klass, jobject platform);

#endif
