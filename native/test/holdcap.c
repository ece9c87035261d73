/* A stand-in for another JVMTI agent that holds the one-environment-at-a-time capability
 * can_generate_sampled_object_alloc_events: integration tests start a target with it to see
 * `alloc` report who has the capability. */
#include <jvmti.h>
#include <string.h>

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved) {
    (void)options;
    (void)reserved;
    jvmtiEnv *jvmti;
    jvmtiCapabilities caps;
    if ((*vm)->GetEnv(vm, (void **)&jvmti, JVMTI_VERSION_11) != JNI_OK) {
        return JNI_ERR;
    }
    memset(&caps, 0, sizeof caps);
    caps.can_generate_sampled_object_alloc_events = 1;
    return (*jvmti)->AddCapabilities(jvmti, &caps) == JVMTI_ERROR_NONE ? JNI_OK : JNI_ERR;
}
