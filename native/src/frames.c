#include "frames.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"

/* jmethodIDs are never reused for another method (HotSpot keeps them until the VM ends, and an
 * unloaded class's ids stop resolving rather than pointing elsewhere), so a cached entry can go
 * stale only by never being asked for again. The table is cleared whole when it fills up. */
#define CACHE_SLOTS 16384
#define CACHE_LIMIT (CACHE_SLOTS * 3 / 4)
#define ACC_NATIVE 0x0100

typedef struct {
    jmethodID method;
    char *class_name;
    char *method_name;
    char *file;
    int native;
    jvmtiLineNumberEntry *lines;
    jint line_count;
} method_entry;

static method_entry cache[CACHE_SLOTS];
static size_t cache_used;

char *java_class_name(const char *signature) {
    size_t len = strlen(signature);
    const char *start = signature;
    if (len >= 2 && signature[0] == 'L' && signature[len - 1] == ';') {
        start = signature + 1;
        len -= 2;
    }
    char *name = malloc(len + 1);
    if (name == NULL) {
        return NULL;
    }
    for (size_t i = 0; i < len; i++) {
        name[i] = start[i] == '/' ? '.' : start[i];
    }
    name[len] = '\0';
    return name;
}

static char *copy(const char *s) {
    return s == NULL ? NULL : strdup(s);
}

static void resolve(JNIEnv *jni, method_entry *e, jmethodID method) {
    jvmtiEnv *jvmti = the_agent.jvmti;
    jclass klass = NULL;
    char *name = NULL;
    char *signature = NULL;
    char *file = NULL;
    jint modifiers = 0;
    jvmtiLineNumberEntry *lines = NULL;
    memset(e, 0, sizeof *e);
    e->method = method;
    if ((*jvmti)->GetMethodName(jvmti, method, &name, NULL, NULL) == JVMTI_ERROR_NONE) {
        e->method_name = copy(name);
        agent_deallocate(name);
    }
    if ((*jvmti)->GetMethodDeclaringClass(jvmti, method, &klass) == JVMTI_ERROR_NONE) {
        if ((*jvmti)->GetClassSignature(jvmti, klass, &signature, NULL) == JVMTI_ERROR_NONE) {
            e->class_name = java_class_name(signature);
            agent_deallocate(signature);
        }
        if (the_agent.held.can_get_source_file_name
                && (*jvmti)->GetSourceFileName(jvmti, klass, &file) == JVMTI_ERROR_NONE) {
            e->file = copy(file);
            agent_deallocate(file);
        }
    }
    if ((*jvmti)->GetMethodModifiers(jvmti, method, &modifiers) == JVMTI_ERROR_NONE) {
        e->native = (modifiers & ACC_NATIVE) != 0;
    }
    if (!e->native && the_agent.held.can_get_line_numbers
            && (*jvmti)->GetLineNumberTable(jvmti, method, &e->line_count, &lines) == JVMTI_ERROR_NONE) {
        e->lines = malloc((size_t)e->line_count * sizeof *lines);
        if (e->lines != NULL) {
            memcpy(e->lines, lines, (size_t)e->line_count * sizeof *lines);
        } else {
            e->line_count = 0;
        }
        agent_deallocate(lines);
    }
    if (klass != NULL) {
        (*jni)->DeleteLocalRef(jni, klass);
    }
}

static void free_entry(method_entry *e) {
    free(e->class_name);
    free(e->method_name);
    free(e->file);
    free(e->lines);
    memset(e, 0, sizeof *e);
}

void frames_cache_clear(void) {
    for (size_t i = 0; i < CACHE_SLOTS; i++) {
        if (cache[i].method != NULL) {
            free_entry(&cache[i]);
        }
    }
    cache_used = 0;
}

static method_entry *lookup(JNIEnv *jni, jmethodID method) {
    if (cache_used >= CACHE_LIMIT) {
        frames_cache_clear();
    }
    size_t slot = (size_t)(((uintptr_t)method >> 3) * 0x9E3779B97F4A7C15ull) & (CACHE_SLOTS - 1);
    while (cache[slot].method != NULL && cache[slot].method != method) {
        slot = (slot + 1) & (CACHE_SLOTS - 1);
    }
    if (cache[slot].method == NULL) {
        resolve(jni, &cache[slot], method);
        cache_used++;
    }
    return &cache[slot];
}

static jint line_of(const method_entry *e, jlocation location) {
    jint line = -1;
    jlocation best = -1;
    for (jint i = 0; i < e->line_count; i++) {
        if (e->lines[i].start_location <= location && e->lines[i].start_location >= best) {
            best = e->lines[i].start_location;
            line = e->lines[i].line_number;
        }
    }
    return line;
}

void frames_write(json_writer *w, JNIEnv *jni, const jvmtiFrameInfo *frames, jint count) {
    json_begin_array(w);
    for (jint i = 0; i < count; i++) {
        const method_entry *e = lookup(jni, frames[i].method);
        json_begin_object(w);
        json_key(w, "class");
        json_mutf8(w, e->class_name);
        json_key(w, "method");
        json_mutf8(w, e->method_name);
        json_key(w, "file");
        json_mutf8(w, e->file);
        json_key(w, "line");
        json_int(w, e->native ? -2 : line_of(e, frames[i].location));
        if (e->native) {
            json_key(w, "native");
            json_bool(w, 1);
        }
        json_end_object(w);
    }
    json_end_array(w);
}
