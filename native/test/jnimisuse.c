/* A stand-in for an agent that breaks a JNI rule when the thread named by its option starts. The
 * option is MODE,THREAD; the modes:
 *   exception  calls Thread.getName() and makes its next JNI call without checking for an
 *              exception, as -Xcheck:jni requires;
 *   locals     holds more local references than the callback's frame has room for, asking for
 *              none (the checker's "JNI local refs: N, exceeds capacity: M").
 * The cli module's integration tests start a target with it to see that their check of the
 * targets' output catches each form the JVM's checker prints, and names the command that
 * preceded it. */
#include <jvmti.h>
#include <stdlib.h>
#include <string.h>

/* The checker plans 32 references for an event callback's frame and warns at the 33rd; it then
 * plans 32 more than it saw and warns again past those: this many warns once. */
#define LEAKED_LOCALS 48

static enum { UNCHECKED_EXCEPTION, LOCALS_PAST_CAPACITY } mode;
static char *thread_name;

static void unchecked_exception(JNIEnv *jni, jthread thread) {
    jclass klass = (*jni)->GetObjectClass(jni, thread);
    jmethodID get_name = (*jni)->GetMethodID(jni, klass, "getName", "()Ljava/lang/String;");
    jobject name = (*jni)->CallObjectMethod(jni, thread, get_name);
    (*jni)->DeleteLocalRef(jni, klass); /* exempt from the rule */
    (*jni)->GetObjectClass(jni, name);  /* the call the checker warns about */
    (*jni)->ExceptionClear(jni);
}

static void locals_past_capacity(JNIEnv *jni, jthread thread) {
    jobject held[LEAKED_LOCALS];
    int count = 0;
    while (count < LEAKED_LOCALS && (held[count] = (*jni)->NewLocalRef(jni, thread)) != NULL) {
        count++;
    }
    while (count > 0) {
        (*jni)->DeleteLocalRef(jni, held[--count]);
    }
}

static void JNICALL on_thread_start(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread) {
    jvmtiThreadInfo info;
    memset(&info, 0, sizeof info);
    if ((*jvmti)->GetThreadInfo(jvmti, thread, &info) != JVMTI_ERROR_NONE) {
        return;
    }
    int chosen = info.name != NULL && strcmp(info.name, thread_name) == 0;
    (*jvmti)->Deallocate(jvmti, (unsigned char *)info.name);
    if (info.thread_group != NULL) (*jni)->DeleteLocalRef(jni, info.thread_group);
    if (info.context_class_loader != NULL) (*jni)->DeleteLocalRef(jni, info.context_class_loader);
    if (!chosen) {
        return;
    }
    if (mode == LOCALS_PAST_CAPACITY) {
        locals_past_capacity(jni, thread);
    } else {
        unchecked_exception(jni, thread);
    }
}

/* Reads MODE,THREAD; 0, or -1 when the option is not one. */
static int read_options(const char *options) {
    const char *comma = options == NULL ? NULL : strchr(options, ',');
    if (comma == NULL) {
        return -1;
    }
    size_t length = (size_t)(comma - options);
    if (length == strlen("exception") && strncmp(options, "exception", length) == 0) {
        mode = UNCHECKED_EXCEPTION;
    } else if (length == strlen("locals") && strncmp(options, "locals", length) == 0) {
        mode = LOCALS_PAST_CAPACITY;
    } else {
        return -1;
    }
    thread_name = strdup(comma + 1);
    return thread_name == NULL ? -1 : 0;
}

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved) {
    (void)reserved;
    jvmtiEnv *jvmti;
    if (read_options(options) != 0 || (*vm)->GetEnv(vm, (void **)&jvmti, JVMTI_VERSION_11) != JNI_OK) {
        return JNI_ERR;
    }
    jvmtiEventCallbacks callbacks;
    memset(&callbacks, 0, sizeof callbacks);
    callbacks.ThreadStart = on_thread_start;
    if ((*jvmti)->SetEventCallbacks(jvmti, &callbacks, sizeof callbacks) != JVMTI_ERROR_NONE) {
        return JNI_ERR;
    }
    return (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_THREAD_START, NULL) == JVMTI_ERROR_NONE
        ? JNI_OK : JNI_ERR;
}
