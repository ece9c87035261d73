/* NativeLeakTarget's native library: memory from the C allocator that nothing in the JVM knows of. */
#include <jni.h>
#include <stdlib.h>
#include <string.h>

JNIEXPORT jlong JNICALL Java_dev_jvmticli_targets_NativeLeakTarget_nativeMalloc(JNIEnv *env, jclass type, jint size) {
    (void)env;
    (void)type;
    void *block = malloc((size_t)size);
    if (block != NULL) {
        memset(block, 1, (size_t)size);
    }
    return (jlong)(long)block;
}
