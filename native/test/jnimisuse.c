/* A stand-in for an agent that breaks a JNI rule: when the thread named by its option starts, it
 * calls Thread.getName() and makes its next JNI call without checking for an exception, as
 * -Xcheck:jni requires. The cli module's integration tests start a target with it to see that
 * their check of the targets' output catches what the JVM's checker prints, and names the
 * command that preceded it. */
#include <jvmti.h>
#include <stdlib.h>
#include <string.h>

static char *thread_name;

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
    jclass klass = (*jni)->GetObjectClass(jni, thread);
    jmethodID get_name = (*jni)->GetMethodID(jni, klass, "getName", "()Ljava/lang/String;");
    jobject name = (*jni)->CallObjectMethod(jni, thread, get_name);
    (*jni)->DeleteLocalRef(jni, klass); /* exempt from the rule */
    (*jni)->GetObjectClass(jni, name);  /* the call the checker warns about */
    (*jni)->ExceptionClear(jni);
}

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved) {
    (void)reserved;
    jvmtiEnv *jvmti;
    if (options == NULL || (thread_name = strdup(options)) == NULL
            || (*vm)->GetEnv(vm, (void **)&jvmti, JVMTI_VERSION_11) != JNI_OK) {
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
