#include "class_module.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "jni_util.h"

/* Modules are few (the JDK has about 70; each class loader adds one unnamed module): a full table
 * stops caching, it does not stop answering. Weak references, so that a cached module does not
 * keep its class loader from being unloaded; a cleared slot is taken again. */
#define MODULE_SLOTS 512

typedef struct {
    jweak module;
    char *text;  /* NULL for an unnamed module */
} module_entry;

static module_entry seen[MODULE_SLOTS];
static size_t seen_count;
static char *uncached; /* once the table is full: the latest answer */

static struct {
    int looked_up;
    jmethodID get_name;       /* Module.getName(): null when unnamed */
    jmethodID get_descriptor; /* Module.getDescriptor() */
    jmethodID raw_version;    /* ModuleDescriptor.rawVersion(): Optional<String> */
    jmethodID or_else;        /* Optional.orElse(Object) */
} calls;

static jmethodID method_of(JNIEnv *jni, const char *class_name, const char *name, const char *signature) {
    jclass klass = (*jni)->FindClass(jni, class_name);
    if (jni_failed(jni, klass)) {
        return NULL;
    }
    jmethodID method = (*jni)->GetMethodID(jni, klass, name, signature);
    (*jni)->DeleteLocalRef(jni, klass);
    return jni_failed(jni, method) ? NULL : method;
}

static void look_up(JNIEnv *jni) {
    calls.looked_up = 1;
    calls.get_name = method_of(jni, "java/lang/Module", "getName", "()Ljava/lang/String;");
    calls.get_descriptor = method_of(jni, "java/lang/Module", "getDescriptor", "()Ljava/lang/module/ModuleDescriptor;");
    calls.raw_version = method_of(jni, "java/lang/module/ModuleDescriptor", "rawVersion", "()Ljava/util/Optional;");
    calls.or_else = method_of(jni, "java/util/Optional", "orElse", "(Ljava/lang/Object;)Ljava/lang/Object;");
}

/* The module's raw version string (what Module.defineModule0 handed to the JVM), or NULL. */
static char *version_of(JNIEnv *jni, jobject module) {
    if (calls.get_descriptor == NULL || calls.raw_version == NULL || calls.or_else == NULL) {
        return NULL;
    }
    char *version = NULL;
    jobject descriptor = (*jni)->CallObjectMethod(jni, module, calls.get_descriptor);
    jobject optional = jni_failed(jni, descriptor) ? NULL : (*jni)->CallObjectMethod(jni, descriptor, calls.raw_version);
    if (descriptor != NULL && !jni_failed(jni, optional)) {
        jstring raw = (*jni)->CallObjectMethod(jni, optional, calls.or_else, (jobject)NULL);
        if (!jni_failed(jni, raw)) {
            const char *chars = (*jni)->GetStringUTFChars(jni, raw, NULL);
            if (!jni_failed(jni, chars)) {
                version = strdup(chars);
                (*jni)->ReleaseStringUTFChars(jni, raw, chars);
            }
            (*jni)->DeleteLocalRef(jni, raw);
        }
        (*jni)->DeleteLocalRef(jni, optional);
    }
    if (descriptor != NULL) (*jni)->DeleteLocalRef(jni, descriptor);
    return version;
}

/* "name@version", "name", or NULL for an unnamed module (or when memory runs out). */
static char *text_of(JNIEnv *jni, jobject module) {
    char *name = calls.get_name == NULL ? NULL : jni_call_string(jni, module, calls.get_name);
    if (name == NULL) {
        return NULL;
    }
    char *version = version_of(jni, module);
    if (version == NULL) {
        return name;
    }
    size_t size = strlen(name) + 1 + strlen(version) + 1;
    char *text = malloc(size);
    if (text != NULL) {
        snprintf(text, size, "%s@%s", name, version);
    }
    free(name);
    free(version);
    return text;
}

/* The slot of a module seen before, or of a cleared one (module set to NULL), or -1. */
static long slot_of(JNIEnv *jni, jobject module, long *free_slot) {
    *free_slot = -1;
    for (size_t i = 0; i < seen_count; i++) {
        if ((*jni)->IsSameObject(jni, seen[i].module, module)) {
            return (long)i;
        }
        if (*free_slot < 0 && (*jni)->IsSameObject(jni, seen[i].module, NULL)) {
            *free_slot = (long)i;
        }
    }
    return -1;
}

/* Called while the caller holds many local references: its own work gets a local frame. */
const char *class_module_of(JNIEnv *jni, jclass klass) {
    if (!calls.looked_up) {
        look_up(jni);
    }
    if ((*jni)->PushLocalFrame(jni, 8) != 0) {
        jni_cleared_exception(jni);
        return NULL;
    }
    const char *text = NULL;
    jobject module = (*jni)->GetModule(jni, klass);
    long free_slot = -1;
    long slot = jni_failed(jni, module) ? -1 : slot_of(jni, module, &free_slot);
    if (module != NULL && slot < 0) {
        slot = free_slot >= 0 ? free_slot : seen_count < MODULE_SLOTS ? (long)seen_count++ : -1;
        if (slot < 0) {
            free(uncached);
            uncached = text_of(jni, module);
            text = uncached;
        } else {
            module_entry *e = &seen[slot];
            if (e->module != NULL) (*jni)->DeleteWeakGlobalRef(jni, e->module);
            free(e->text);
            e->text = text_of(jni, module);
            e->module = (*jni)->NewWeakGlobalRef(jni, module);
            if (jni_failed(jni, e->module)) {
                e->module = NULL;
            }
        }
    }
    if (slot >= 0) {
        text = seen[slot].text;
    }
    (*jni)->PopLocalFrame(jni, NULL);
    return text;
}

void class_module_release(JNIEnv *jni) {
    for (size_t i = 0; i < seen_count; i++) {
        if (seen[i].module != NULL) (*jni)->DeleteWeakGlobalRef(jni, seen[i].module);
        free(seen[i].text);
    }
    memset(seen, 0, sizeof seen);
    seen_count = 0;
    free(uncached);
    uncached = NULL;
}
AGENT_RELEASE(class_module_release)
