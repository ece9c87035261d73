#include "probe_class.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "base64.h"
#include "jni_util.h"

/* The class if an earlier agent of this JVM defined it: in the boot loader only (a class of that
 * name on the application's class path is not it), NULL when there is none. */
static jclass defined_in_boot_loader(JNIEnv *jni, const char *internal_name) {
    jvmtiEnv *jvmti = the_agent.jvmti;
    char wanted[256];
    if (snprintf(wanted, sizeof wanted, "L%s;", internal_name) >= (int)sizeof wanted) {
        return NULL;
    }
    jint count = 0;
    jclass *loaded = NULL;
    jclass found = NULL;
    if ((*jvmti)->GetLoadedClasses(jvmti, &count, &loaded) != JVMTI_ERROR_NONE) {
        return NULL;
    }
    jni_reserve_locals(jni, count);
    for (jint i = 0; i < count; i++) {
        char *signature = NULL;
        jobject loader = NULL;
        if (found == NULL && (*jvmti)->GetClassSignature(jvmti, loaded[i], &signature, NULL) == JVMTI_ERROR_NONE
                && strcmp(signature, wanted) == 0 && (*jvmti)->GetClassLoader(jvmti, loaded[i], &loader) == JVMTI_ERROR_NONE) {
            if (loader == NULL) {
                found = loaded[i];
                loaded[i] = NULL;
            } else {
                (*jni)->DeleteLocalRef(jni, loader);
            }
        }
        agent_deallocate(signature);
        if (loaded[i] != NULL) {
            (*jni)->DeleteLocalRef(jni, loaded[i]);
        }
    }
    agent_deallocate(loaded);
    return found;
}

static jclass define(command_ctx *ctx, const char *internal_name, const char *field, long max_bytes) {
    JNIEnv *jni = ctx->jni;
    const char *text = request_string(ctx->req, field);
    uint8_t *bytes = malloc((size_t)max_bytes);
    long len = text == NULL || bytes == NULL ? -1 : base64_decode(text, strlen(text), bytes, (size_t)max_bytes);
    if (len <= 0) {
        free(bytes);
        char message[128];
        snprintf(message, sizeof message, "%s must be the probe class's bytes in base64", field);
        command_fail(ctx, "bad_request", message);
        return NULL;
    }
    jclass defined = (*jni)->DefineClass(jni, internal_name, NULL, (const jbyte *)bytes, (jsize)len);
    free(bytes);
    if (defined == NULL) {
        jni_cleared_exception(jni);
        command_fail(ctx, "jni_error", "the JVM refused the probe class (DefineClass)");
    }
    return defined;
}

jclass probe_class_bind(command_ctx *ctx, const char *internal_name, const char *field, long max_bytes,
                        const JNINativeMethod *natives, int native_count) {
    JNIEnv *jni = ctx->jni;
    jclass found = defined_in_boot_loader(jni, internal_name);
    if (found == NULL && (found = define(ctx, internal_name, field, max_bytes)) == NULL) {
        return NULL;
    }
    jclass global = (*jni)->NewGlobalRef(jni, found);
    (*jni)->DeleteLocalRef(jni, found);
    if (global == NULL) {
        command_fail(ctx, "no_memory", "no global reference for the probe class");
        return NULL;
    }
    if ((*jni)->RegisterNatives(jni, global, natives, native_count) != 0) {
        jni_cleared_exception(jni);
        (*jni)->DeleteGlobalRef(jni, global);
        command_fail(ctx, "jni_error", "cannot bind the probe class's native methods (RegisterNatives): a probe class of another"
                     " jvmti-cli version is in this JVM");
        return NULL;
    }
    /* Initialized here, on the agent thread (GetStaticMethodID initializes the class it looks in):
     * left to the first probes, the target's threads that reach them together would wait on the
     * class's init lock, a monitor whose contended enters `contention` would count as the target's. */
    if ((*jni)->GetStaticMethodID(jni, global, natives[0].name, natives[0].signature) == NULL) {
        jni_cleared_exception(jni);
        (*jni)->DeleteGlobalRef(jni, global);
        command_fail(ctx, "jni_error", "cannot initialize the probe class");
        return NULL;
    }
    return global;
}

int probe_class_readable_from(command_ctx *ctx, jclass probe, jclass klass) {
    JNIEnv *jni = ctx->jni;
    jclass class_class = (*jni)->FindClass(jni, "java/lang/Class");
    jmethodID get_module = jni_failed(jni, class_class) ? NULL : (*jni)->GetMethodID(jni, class_class, "getModule", "()Ljava/lang/Module;");
    if (class_class != NULL) (*jni)->DeleteLocalRef(jni, class_class);
    if (jni_failed(jni, get_module)) {
        command_fail(ctx, "jni_error", "Class.getModule not found");
        return -1;
    }
    jobject module = (*jni)->CallObjectMethod(jni, klass, get_module);
    jobject probe_module = jni_failed(jni, module) ? NULL : (*jni)->CallObjectMethod(jni, probe, get_module);
    if (jni_failed(jni, probe_module)) {
        if (module != NULL) (*jni)->DeleteLocalRef(jni, module);
        command_fail(ctx, "jni_error", "cannot read a class's module");
        return -1;
    }
    jvmtiError err = (*the_agent.jvmti)->AddModuleReads(the_agent.jvmti, module, probe_module);
    (*jni)->DeleteLocalRef(jni, module);
    (*jni)->DeleteLocalRef(jni, probe_module);
    if (err != JVMTI_ERROR_NONE) {
        command_fail_jvmti(ctx, "AddModuleReads", err);
        return -1;
    }
    return 0;
}
