#include "method_table.h"

#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "frames.h"
#include "jni_util.h"

static size_t round_up_pow2(size_t n) {
    size_t p = 16;
    while (p < n) {
        p <<= 1;
    }
    return p;
}

int method_table_init(method_table *t, size_t max_count) {
    memset(t, 0, sizeof *t);
    t->capacity = round_up_pow2(max_count * 2);
    t->max_count = max_count;
    t->methods = calloc(max_count, sizeof *t->methods);
    t->slots = calloc(t->capacity, sizeof *t->slots);
    if (t->methods == NULL || t->slots == NULL) {
        method_table_free(t);
        return -1;
    }
    return 0;
}

void method_table_free(method_table *t) {
    for (size_t i = 0; t->methods != NULL && i < t->count; i++) {
        if (t->methods[i].lines != NULL) {
            (*the_agent.jvmti)->Deallocate(the_agent.jvmti, (unsigned char *)t->methods[i].lines);
        }
    }
    free(t->methods);
    free(t->slots);
    memset(t, 0, sizeof *t);
}

int32_t method_table_add(method_table *t, jmethodID m) {
    uint64_t h = (uint64_t)(uintptr_t)m * 0x9E3779B97F4A7C15ULL;
    size_t mask = t->capacity - 1;
    for (size_t i = (h >> 17) & mask;; i = (i + 1) & mask) {
        int32_t slot = t->slots[i];
        if (slot == 0) {
            if (t->count == t->max_count) {
                return -1;
            }
            t->methods[t->count].method = m;
            t->slots[i] = (int32_t)(t->count + 1);
            return (int32_t)t->count++;
        }
        if (t->methods[slot - 1].method == m) {
            return slot - 1;
        }
    }
}

int method_table_line(method_table *t, int32_t i, jlocation bci) {
    if (i < 0 || (size_t)i >= t->count || bci < 0) {
        return -1;
    }
    method_slot *s = &t->methods[i];
    if (!s->lines_loaded) {
        s->lines_loaded = 1;
        if ((*the_agent.jvmti)->GetLineNumberTable(the_agent.jvmti, s->method, &s->line_count, &s->lines) != JVMTI_ERROR_NONE) {
            s->lines = NULL;
            s->line_count = 0;
        }
    }
    return frames_line_at(s->lines, s->line_count, bci);
}

static void write_jvmti_string(json_writer *w, char *s) {
    json_mutf8(w, s);
    if (s != NULL) {
        (*the_agent.jvmti)->Deallocate(the_agent.jvmti, (unsigned char *)s);
    }
}

void method_table_write(method_table *t, JNIEnv *jni, json_writer *w) {
    jvmtiEnv *jvmti = the_agent.jvmti;
    jobject platform = t->with_origin ? jni_platform_class_loader(jni) : NULL;
    json_begin_array(w);
    for (size_t i = 0; i < t->count; i++) {
        jmethodID m = t->methods[i].method;
        jclass declaring = NULL;
        char *class_sig = NULL;
        char *name = NULL;
        char *sig = NULL;
        int jdk = -1;
        if ((*jvmti)->GetMethodDeclaringClass(jvmti, m, &declaring) == JVMTI_ERROR_NONE) {
            if ((*jvmti)->GetClassSignature(jvmti, declaring, &class_sig, NULL) != JVMTI_ERROR_NONE) {
                class_sig = NULL;
            }
            if (t->with_origin) {
                jdk = jni_defined_by_jdk(jni, the_agent.jvmti, declaring, platform);
            }
            (*jni)->DeleteLocalRef(jni, declaring);
        }
        if ((*jvmti)->GetMethodName(jvmti, m, &name, &sig, NULL) != JVMTI_ERROR_NONE) {
            name = NULL;
            sig = NULL;
        }
        json_begin_object(w);
        json_key(w, "class");
        write_jvmti_string(w, class_sig);
        json_key(w, "name");
        write_jvmti_string(w, name);
        json_key(w, "signature");
        write_jvmti_string(w, sig);
        if (t->with_origin) {
            json_key(w, "jdk");
            if (jdk < 0) {
                json_null(w);
            } else {
                json_bool(w, jdk);
            }
        }
        json_end_object(w);
    }
    json_end_array(w);
    if (platform != NULL) {
        (*jni)->DeleteLocalRef(jni, platform);
    }
}

void method_table_write_frames(method_table *t, json_writer *w, const jvmtiFrameInfo *frames, int depth) {
    json_begin_array(w);
    for (int i = 0; i < depth; i++) {
        int32_t index = method_table_add(t, frames[i].method);
        json_begin_array(w);
        json_int(w, index);
        json_int(w, frames[i].location);
        json_int(w, method_table_line(t, index, frames[i].location));
        json_end_array(w);
    }
    json_end_array(w);
}

void method_table_finish(method_table *t, JNIEnv *jni, json_writer *w) {
    if (t == NULL) {
        json_begin_array(w);
        json_end_array(w);
        return;
    }
    method_table_write(t, jni, w);
    method_table_free(t);
}
