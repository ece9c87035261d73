/* For PathsTarget: keeps an object alive through a JNI global reference, as a native library
 * that forgets to delete one does. */
#include <jni.h>

JNIEXPORT void JNICALL Java_dev_jvmticli_targets_PathsTarget_keepGlobal(JNIEnv *env, jclass caller, jobject object) {
    (void)caller;
    (*env)->NewGlobalRef(env, object);
}
