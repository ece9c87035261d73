#include "instrument.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "base64.h"
#include "frames.h"
#include "sha256.h"

typedef enum { HOOK_RECORD, HOOK_INSTALL, HOOK_RESTORE } hook_mode;

/* What the hook does during the one RetransformClasses under way (agent thread only). */
static struct {
    hook_mode mode;
    instrumented_class *classes;
    int count;
    int recorded_into_restored; /* HOOK_RECORD after a restore: hash only */
    int failed;                 /* the hook could not do its part (no memory) */
    pthread_t caller;           /* the thread in RetransformClasses: the hook serves it alone */
} hook;

/* The sessions that hold classes (agent thread only): trace or exceptions, and contention's parks. */
#define HOLDERS_MAX 4
static struct {
    const char *name;
    const instrumented_class *classes;
    int count;
} holders[HOLDERS_MAX];

static void release(const instrumented_class *classes);

/* Two session engines instrument classes, so HOLDERS_MAX is never reached. */
static void hold(const char *name, const instrumented_class *classes, int count) {
    release(classes);
    for (int h = 0; h < HOLDERS_MAX; h++) {
        if (holders[h].classes == NULL) {
            holders[h].name = name;
            holders[h].classes = classes;
            holders[h].count = count;
            return;
        }
    }
}

static void release(const instrumented_class *classes) {
    for (int h = 0; h < HOLDERS_MAX; h++) {
        if (holders[h].classes == classes) {
            memset(&holders[h], 0, sizeof holders[h]);
        }
    }
}

int instrument_refuse_taken(command_ctx *ctx, const instrumented_class *classes, int count) {
    for (int h = 0; h < HOLDERS_MAX; h++) {
        if (holders[h].classes == NULL || holders[h].classes == classes) {
            continue;
        }
        for (int i = 0; i < count; i++) {
            for (int j = 0; j < holders[h].count; j++) {
                if ((*ctx->jni)->IsSameObject(ctx->jni, classes[i].klass, holders[h].classes[j].klass)) {
                    char *name = java_class_name(classes[i].signature);
                    char message[400];
                    snprintf(message, sizeof message, "%.300s is instrumented by %s for another client until it ends",
                             name != NULL ? name : classes[i].signature, holders[h].name);
                    free(name);
                    command_fail(ctx, "busy", message);
                    return 1;
                }
            }
        }
    }
    return 0;
}

static instrumented_class *ours(JNIEnv *jni, jclass being_redefined) {
    for (int i = 0; being_redefined != NULL && i < hook.count; i++) {
        if ((*jni)->IsSameObject(jni, being_redefined, hook.classes[i].klass)) {
            return &hook.classes[i];
        }
    }
    return NULL;
}

/* A copy in JVMTI memory, which HotSpot takes over when the hook hands it out; NULL without memory. */
static unsigned char *jvmti_copy(jvmtiEnv *jvmti, const unsigned char *data, jint len) {
    unsigned char *copy = NULL;
    if ((*jvmti)->Allocate(jvmti, len, &copy) != JVMTI_ERROR_NONE) {
        return NULL;
    }
    memcpy(copy, data, (size_t)len);
    return copy;
}

static void hash(const unsigned char *data, jint len, char out[65]) {
    sha256 h;
    sha256_init(&h);
    sha256_update(&h, data, (size_t)len);
    sha256_hex(&h, out);
}

static void JNICALL on_class_file(jvmtiEnv *jvmti, JNIEnv *jni, jclass being_redefined, jobject loader, const char *name,
                                  jobject protection_domain, jint len, const unsigned char *data, jint *new_len,
                                  unsigned char **new_data) {
    (void)loader;
    (void)name;
    (void)protection_domain;
    if (__atomic_load_n(&hook.classes, __ATOMIC_ACQUIRE) == NULL || !pthread_equal(pthread_self(), hook.caller)) {
        return;
    }
    instrumented_class *c = ours(jni, being_redefined);
    if (c == NULL) {
        return;
    }
    if (hook.mode == HOOK_RECORD && hook.recorded_into_restored) {
        hash(data, len, c->restored_sha256);
    } else if (hook.mode == HOOK_RECORD) {
        free(c->original);
        c->original = malloc((size_t)len);
        if (c->original == NULL) {
            hook.failed = 1;
            return;
        }
        memcpy(c->original, data, (size_t)len);
        c->original_len = len;
        hash(data, len, c->original_sha256);
        /* Handed back unchanged, the bytes become the class file HotSpot keeps for the class (its
         * first transformation caches what it was given), so every later retransformation, the
         * restore's too, starts from exactly them. Handed nothing, HotSpot caches at the install
         * a class file reconstituted from the version this read made, which JDK 17 writes without
         * the StackMapTables of a class of its CDS archive (it keeps none for a class it does not
         * verify, the boot loader's): docs/trace.md. */
        *new_data = jvmti_copy(jvmti, data, len);
        if (*new_data == NULL) {
            hook.failed = 1;
            return;
        }
        *new_len = len;
    } else if (hook.mode == HOOK_INSTALL) {
        hash(data, len, c->replaced_sha256);
        *new_data = jvmti_copy(jvmti, c->replacement, c->replacement_len);
        if (*new_data == NULL) {
            hook.failed = 1;
            return;
        }
        *new_len = c->replacement_len;
    }
}

void instrument_callbacks(jvmtiEventCallbacks *callbacks) {
    callbacks->ClassFileLoadHook = on_class_file;
}

void instrument_wants(jvmtiCapabilities *c) {
    c->can_retransform_classes = 1;
}

/* One RetransformClasses of every class with the hook in mode. HotSpot turns ClassFileLoadHook on
 * for every thread only (a class may load before its thread exists), so the hook itself serves
 * only the calling thread, and the classes being redefined that are ours. */
static jvmtiError retransform(instrumented_class *classes, int count, hook_mode mode, const char **what) {
    jvmtiEnv *jvmti = the_agent.jvmti;
    jclass *list = malloc((size_t)count * sizeof *list);
    if (list == NULL) {
        *what = "out of memory";
        return JVMTI_ERROR_OUT_OF_MEMORY;
    }
    for (int i = 0; i < count; i++) {
        list[i] = classes[i].klass;
    }
    hook.mode = mode;
    hook.count = count;
    hook.failed = 0;
    hook.caller = pthread_self();
    __atomic_store_n(&hook.classes, classes, __ATOMIC_RELEASE);
    jvmtiError err = (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_CLASS_FILE_LOAD_HOOK, NULL);
    *what = "SetEventNotificationMode(ClassFileLoadHook)";
    if (err == JVMTI_ERROR_NONE) {
        err = (*jvmti)->RetransformClasses(jvmti, count, list);
        *what = "RetransformClasses";
        (void)(*jvmti)->SetEventNotificationMode(jvmti, JVMTI_DISABLE, JVMTI_EVENT_CLASS_FILE_LOAD_HOOK, NULL);
        if (err == JVMTI_ERROR_NONE && hook.failed) {
            *what = "out of memory in ClassFileLoadHook";
            err = JVMTI_ERROR_OUT_OF_MEMORY;
        }
    }
    __atomic_store_n(&hook.classes, NULL, __ATOMIC_RELEASE);
    free(list);
    return err;
}

jvmtiError instrument_read(instrumented_class *classes, int count, const char *holder, const char **what) {
    hold(holder, classes, count);
    hook.recorded_into_restored = 0;
    jvmtiError err = retransform(classes, count, HOOK_RECORD, what);
    for (int i = 0; err == JVMTI_ERROR_NONE && i < count; i++) {
        if (classes[i].original == NULL) {
            *what = "ClassFileLoadHook (no bytes for a class)";
            err = JVMTI_ERROR_INTERNAL;
        }
    }
    return err;
}

jvmtiError instrument_install(instrumented_class *classes, int count, const char **what) {
    for (int i = 0; i < count; i++) {
        if (classes[i].replacement == NULL || classes[i].replacement_filled != classes[i].replacement_len) {
            *what = "the new bytes of a class are incomplete";
            return JVMTI_ERROR_ILLEGAL_ARGUMENT;
        }
    }
    return retransform(classes, count, HOOK_INSTALL, what);
}

void instrument_refused(command_ctx *ctx, const session_engine *e, jvmtiError err, const char *what) {
    char *name = NULL;
    char message[320];
    (void)(*the_agent.jvmti)->GetErrorName(the_agent.jvmti, err, &name);
    snprintf(message, sizeof message, "the JVM refused the instrumented classes (%s: %s); every class is left as it was",
             what, name == NULL ? "unknown error" : name);
    agent_deallocate(name);
    session_end(e, ctx->jni);
    command_fail(ctx, "refused", message);
}

void instrument_write_originals(json_writer *w, const instrumented_class *classes, int count) {
    json_begin_array_field(w, "classes");
    for (int i = 0; i < count; i++) {
        json_begin_object(w);
        json_field_mutf8(w, "name", classes[i].signature);
        json_field_cstring(w, "sha256", classes[i].original_sha256);
        json_key(w, "bytes");
        base64_write_json(w, classes[i].original, (size_t)classes[i].original_len);
        json_end_object(w);
    }
    json_end_array(w);
}

void instrument_write_outcome(json_writer *w, const instrumented_class *classes, int count) {
    json_begin_array_field(w, "classes");
    for (int i = 0; i < count; i++) {
        json_begin_object(w);
        json_field_mutf8(w, "name", classes[i].signature);
        json_field_cstring(w, "sha256", classes[i].original_sha256);
        json_field_cstring(w, "replacedSha256", classes[i].replaced_sha256);
        json_field_cstring(w, "restoredSha256", classes[i].restored_sha256);
        json_end_object(w);
    }
    json_end_array(w);
}

int instrument_before_install(command_ctx *ctx, const session_state *run, int installed, const char *no_session) {
    if (!run->running || run->client_id != ctx->client_id) {
        command_fail(ctx, "not_owner", no_session);
        return 0;
    }
    if (installed) {
        command_fail(ctx, "bad_request", "the session's classes are installed already");
        return 0;
    }
    return 1;
}

void instrument_receive_bytes(command_ctx *ctx, instrumented_class *classes, int count) {
    int64_t index = request_int(ctx->req, "class", -1);
    int64_t size = request_int(ctx->req, "size", -1);
    int64_t offset = request_int(ctx->req, "offset", -1);
    const char *data = request_string(ctx->req, "data");
    if (index < 0 || index >= count || size <= 0 || size > INSTRUMENT_MAX_CLASS_BYTES || data == NULL) {
        command_fail(ctx, "bad_request", "class, size (at most 8 MiB) and data are required");
        return;
    }
    instrumented_class *c = &classes[index];
    if (offset == 0) {
        free(c->replacement);
        c->replacement = malloc((size_t)size);
        c->replacement_len = c->replacement == NULL ? 0 : (jint)size;
        c->replacement_filled = 0;
        if (c->replacement == NULL) {
            command_fail(ctx, "no_memory", "no room for the class's new bytes");
            return;
        }
    }
    if (c->replacement == NULL || size != c->replacement_len || offset != c->replacement_filled) {
        command_fail(ctx, "bad_request", "the pieces of a class's bytes must come in order, each with the same size");
        return;
    }
    long n = base64_decode(data, strlen(data), c->replacement + offset, (size_t)(size - offset));
    if (n < 0) {
        command_fail(ctx, "bad_request", "data must be base64 and no longer than the size left");
        return;
    }
    c->replacement_filled += (jint)n;
    command_result(ctx);
    json_begin_object(ctx->out);
    json_field_int(ctx->out, "received", c->replacement_filled);
    json_end_object(ctx->out);
}

jvmtiError instrument_restore(instrumented_class *classes, int count, const char **what) {
    jvmtiError err = retransform(classes, count, HOOK_RESTORE, what);
    if (err == JVMTI_ERROR_NONE) {
        hook.recorded_into_restored = 1;
        err = retransform(classes, count, HOOK_RECORD, what);
        hook.recorded_into_restored = 0;
    }
    return err;
}

void instrument_free(JNIEnv *jni, instrumented_class *classes, int count) {
    release(classes);
    for (int i = 0; i < count; i++) {
        if (jni != NULL && classes[i].klass != NULL) {
            (*jni)->DeleteGlobalRef(jni, classes[i].klass);
        }
        free(classes[i].signature);
        free(classes[i].original);
        free(classes[i].replacement);
        memset(&classes[i], 0, sizeof classes[i]);
    }
}
