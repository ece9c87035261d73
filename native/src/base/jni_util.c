#include "jni_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

jobject jni_new_thread(JNIEnv *jni, const char *name) {
    jclass thread_class = (*jni)->FindClass(jni, "java/lang/Thread");
    jmethodID init = jni_failed(jni, thread_class) ? NULL : (*jni)->GetMethodID(jni, thread_class, "<init>", "(Ljava/lang/String;)V");
    jstring text = jni_failed(jni, init) ? NULL : (*jni)->NewStringUTF(jni, name);
    jobject thread = jni_failed(jni, text) ? NULL : (*jni)->NewObject(jni, thread_class, init, text);
    jobject global = jni_failed(jni, thread) ? NULL : (*jni)->NewGlobalRef(jni, thread);
    if (thread_class != NULL) (*jni)->DeleteLocalRef(jni, thread_class);
    if (text != NULL) (*jni)->DeleteLocalRef(jni, text);
    if (thread != NULL) (*jni)->DeleteLocalRef(jni, thread);
    return global;
}

/* A malloc'd modified UTF-8 copy of value, whose local reference is deleted; NULL for null. */
static char *copied_string(JNIEnv *jni, jstring value) {
    if (value == NULL) {
        return NULL;
    }
    char *copy = NULL;
    const char *chars = (*jni)->GetStringUTFChars(jni, value, NULL);
    if (chars != NULL) {
        copy = strdup(chars);
        (*jni)->ReleaseStringUTFChars(jni, value, chars);
    }
    jni_cleared_exception(jni);
    (*jni)->DeleteLocalRef(jni, value);
    return copy;
}

char *jni_call_string(JNIEnv *jni, jobject target, jmethodID getter) {
    jstring value = target == NULL ? NULL : (*jni)->CallObjectMethod(jni, target, getter);
    return jni_failed(jni, value) ? NULL : copied_string(jni, value);
}

char *jni_string_field(JNIEnv *jni, jobject target, jfieldID field) {
    return target == NULL ? NULL : copied_string(jni, (*jni)->GetObjectField(jni, target, field));
}

int jni_accessor_find(JNIEnv *jni, jclass klass, const char *getter, const char *field, const char *type, jni_accessor *out) {
    char signature[128];
    out->field = (*jni)->GetFieldID(jni, klass, field, type);
    if (jni_cleared_exception(jni)) {
        out->field = NULL;
    }
    out->getter = NULL;
    if (snprintf(signature, sizeof signature, "()%s", type) < (int)sizeof signature) {
        out->getter = (*jni)->GetMethodID(jni, klass, getter, signature);
    }
    return jni_failed(jni, out->getter) ? -1 : 0;
}

jobject jni_read_object(JNIEnv *jni, jobject target, const jni_accessor *value) {
    return value->field != NULL ? (*jni)->GetObjectField(jni, target, value->field)
                                : (*jni)->CallObjectMethod(jni, target, value->getter);
}

jint jni_read_int(JNIEnv *jni, jobject target, const jni_accessor *value) {
    return value->field != NULL ? (*jni)->GetIntField(jni, target, value->field) : (*jni)->CallIntMethod(jni, target, value->getter);
}

jlong jni_read_long(JNIEnv *jni, jobject target, const jni_accessor *value) {
    return value->field != NULL ? (*jni)->GetLongField(jni, target, value->field) : (*jni)->CallLongMethod(jni, target, value->getter);
}

char *jni_read_string(JNIEnv *jni, jobject target, const jni_accessor *value) {
    return value->field != NULL ? jni_string_field(jni, target, value->field) : jni_call_string(jni, target, value->getter);
}

int jni_call_int(JNIEnv *jni, jobject target, jmethodID getter, jint *value) {
    *value = (*jni)->CallIntMethod(jni, target, getter);
    return jni_cleared_exception(jni) ? -1 : 0;
}

int jni_call_boolean(JNIEnv *jni, jobject target, jmethodID getter, jboolean *value) {
    *value = (*jni)->CallBooleanMethod(jni, target, getter);
    return jni_cleared_exception(jni) ? -1 : 0;
}

int jni_call_long(JNIEnv *jni, jobject target, jmethodID getter, jlong *value) {
    *value = (*jni)->CallLongMethod(jni, target, getter);
    return jni_cleared_exception(jni) ? -1 : 0;
}

void jni_reserve_locals(JNIEnv *jni, jint count) {
    if (count > 0 && (*jni)->EnsureLocalCapacity(jni, JNI_COMMAND_LOCALS + count) != 0) {
        jni_cleared_exception(jni); /* the OutOfMemoryError it throws; the references exist anyway */
    }
}

jobject jni_platform_class_loader(JNIEnv *jni) {
    jclass loader_class = (*jni)->FindClass(jni, "java/lang/ClassLoader");
    if (jni_failed(jni, loader_class)) {
        return NULL;
    }
    jmethodID get = (*jni)->GetStaticMethodID(jni, loader_class, "getPlatformClassLoader", "()Ljava/lang/ClassLoader;");
    jobject loader = jni_failed(jni, get) ? NULL : (*jni)->CallStaticObjectMethod(jni, loader_class, get);
    if (jni_failed(jni, loader)) {
        loader = NULL;
    }
    (*jni)->DeleteLocalRef(jni, loader_class);
    return loader;
}

int jni_defined_by_jdk(JNIEnv *jni, jvmtiEnv *jvmti, jclass klass, jobject platform) {
    jobject loader = NULL;
    if ((*jvmti)->GetClassLoader(jvmti, klass, &loader) != JVMTI_ERROR_NONE) {
        return -1;
    }
    if (loader == NULL) {
        return 1;
    }
    int jdk = platform == NULL ? -1 : (*jni)->IsSameObject(jni, loader, platform) == JNI_TRUE;
    (*jni)->DeleteLocalRef(jni, loader);
    return jdk;
}
