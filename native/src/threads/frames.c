#include "frames.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent.h"
#include "class_module.h"
#include "jni_util.h"

/* jmethodIDs are never reused for another method (HotSpot keeps them until the VM ends, and an
 * unloaded class's ids stop resolving rather than pointing elsewhere), so a cached entry can go
 * stale only by never being asked for again. The table is cleared whole when it fills up. */
#define CACHE_SLOTS 16384
#define CACHE_LIMIT (CACHE_SLOTS * 3 / 4)
#define ACC_SYNCHRONIZED 0x0020
#define ACC_NATIVE 0x0100
#define OP_MONITORENTER 0xC2

typedef struct {
    jmethodID method;
    char *json;         /* the method as JSON, unclosed: {"class":..,"method":..,"file":.. */
    size_t json_len;
    int native;
    int may_lock;       /* synchronized, or its bytecode may hold a monitorenter */
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
    /* a '.' in an internal name is a hidden class's: Class.getName() has it as '/' */
    for (size_t i = 0; i < len; i++) {
        name[i] = start[i] == '/' ? '.' : start[i] == '.' ? '/' : start[i];
    }
    name[len] = '\0';
    return name;
}

typedef struct {
    char *data;
    size_t len;
    int failed;
} growing;

static int to_growing(void *ctx, const char *data, size_t len) {
    growing *g = ctx;
    char *bigger = realloc(g->data, g->len + len + 1);
    if (bigger == NULL) {
        g->failed = 1;
        return -1;
    }
    memcpy(bigger + g->len, data, len);
    g->data = bigger;
    g->len += len;
    return 0;
}

char *frames_method_json(const char *class_name, const char *method_name, const char *file, const char *module,
                         size_t *len) {
    static json_writer w; /* one request at a time, on the agent thread */
    growing out = { NULL, 0, 0 };
    json_init(&w, to_growing, &out);
    json_begin_object(&w);
    json_field_mutf8(&w, "class", class_name);
    json_field_mutf8(&w, "method", method_name);
    json_field_mutf8(&w, "file", file);
    if (module != NULL) {
        json_field_mutf8(&w, "module", module);
    }
    if (json_flush(&w) != 0 || out.failed) {
        free(out.data);
        return NULL;
    }
    *len = out.len;
    return out.data;
}

/* The method's JSON, made once per method so that writing a frame (or a method of a frame table)
 * is a copy and a tail. */
static void encode(method_entry *e, const char *class_name, const char *method_name, const char *file,
                   const char *module) {
    e->json = frames_method_json(class_name, method_name, file, module, &e->json_len);
}

/* Whether the bytecode holds a monitorenter opcode. A byte scan, not a decoder: an operand that
 * happens to equal the opcode gives a false "yes", which only costs a look that was not needed. */
static int has_monitorenter(jmethodID method) {
    jint length = 0;
    unsigned char *code = NULL;
    if (!the_agent.held.can_get_bytecodes
            || (*the_agent.jvmti)->GetBytecodes(the_agent.jvmti, method, &length, &code) != JVMTI_ERROR_NONE) {
        return 1;
    }
    int found = memchr(code, OP_MONITORENTER, (size_t)length) != NULL;
    agent_deallocate(code);
    return found;
}

/* JDK 11 to 14 sign a VM-anonymous class (a lambda's) "Main$$Lambda$1/1300109446", where
 * Class.getName() and jstack have "Main$$Lambda$1/0x0000000840060840"; no Java class name has a
 * part made of digits alone. Hidden classes (JDK 15+) sign the name getName() has. */
static int is_vm_anonymous(const char *signature) {
    const char *last = strrchr(signature, '/');
    if (last == NULL || last[1] == ';') {
        return 0;
    }
    for (const char *c = last + 1; *c != ';' && *c != '\0'; c++) {
        if (*c < '0' || *c > '9') {
            return 0;
        }
    }
    return 1;
}

/* The class's name as Class.getName() has it; NULL on failure. */
static char *class_name_of(JNIEnv *jni, jclass klass, const char *signature) {
    if (!is_vm_anonymous(signature)) {
        return java_class_name(signature);
    }
    jclass class_class = (*jni)->GetObjectClass(jni, klass);
    jmethodID get_name = class_class == NULL ? NULL : (*jni)->GetMethodID(jni, class_class, "getName", "()Ljava/lang/String;");
    char *name = NULL;
    if (jni_failed(jni, get_name) == 0) {
        name = jni_call_string(jni, klass, get_name);
    }
    if (class_class != NULL) {
        (*jni)->DeleteLocalRef(jni, class_class);
    }
    return name;
}

static void resolve(JNIEnv *jni, method_entry *e, jmethodID method) {
    jvmtiEnv *jvmti = the_agent.jvmti;
    jclass klass = NULL;
    char *name = NULL;
    char *signature = NULL;
    char *class_name = NULL;
    char *file = NULL;
    const char *module = NULL;
    jint modifiers = 0;
    jvmtiLineNumberEntry *lines = NULL;
    memset(e, 0, sizeof *e);
    e->method = method;
    e->may_lock = 1;
    (void)(*jvmti)->GetMethodName(jvmti, method, &name, NULL, NULL);
    if ((*jvmti)->GetMethodDeclaringClass(jvmti, method, &klass) == JVMTI_ERROR_NONE) {
        if ((*jvmti)->GetClassSignature(jvmti, klass, &signature, NULL) == JVMTI_ERROR_NONE) {
            class_name = class_name_of(jni, klass, signature);
            agent_deallocate(signature);
        }
        if (!the_agent.held.can_get_source_file_name
                || (*jvmti)->GetSourceFileName(jvmti, klass, &file) != JVMTI_ERROR_NONE) {
            file = NULL;
        }
        module = class_module_of(jni, klass);
    }
    if ((*jvmti)->GetMethodModifiers(jvmti, method, &modifiers) == JVMTI_ERROR_NONE) {
        e->native = (modifiers & ACC_NATIVE) != 0;
        e->may_lock = (modifiers & ACC_SYNCHRONIZED) != 0 || (!e->native && has_monitorenter(method));
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
    encode(e, class_name, name, file, module);
    free(class_name);
    agent_deallocate(name);
    agent_deallocate(file);
    if (klass != NULL) {
        (*jni)->DeleteLocalRef(jni, klass);
    }
}

static void free_entry(method_entry *e) {
    free(e->json);
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
AGENT_FORGET(frames_cache_clear)

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

jint frames_line_at(const jvmtiLineNumberEntry *lines, jint count, jlocation location) {
    jint line = -1;
    jlocation best = -1;
    for (jint i = 0; i < count; i++) {
        if (lines[i].start_location <= location && lines[i].start_location >= best) {
            best = lines[i].start_location;
            line = lines[i].line_number;
        }
    }
    return line;
}

void frames_write(json_writer *w, JNIEnv *jni, const jvmtiFrameInfo *frames, jint count) {
    json_begin_array(w);
    for (jint i = 0; i < count; i++) {
        const method_entry *e = lookup(jni, frames[i].method);
        if (e->json == NULL) { /* out of memory when it was resolved */
            json_null(w);
            continue;
        }
        json_fragment(w, e->json, e->json_len);
        if (e->native) {
            static const char native_tail[] = ",\"line\":-2,\"native\":true}";
            json_raw_bytes(w, native_tail, sizeof native_tail - 1);
        } else {
            char tail[40] = ",\"line\":";
            size_t n = strlen(tail);
            n += json_format_int(frames_line_at(e->lines, e->line_count, frames[i].location), tail + n);
            tail[n++] = '}';
            json_raw_bytes(w, tail, n);
        }
    }
    json_end_array(w);
}

int stack_memo_init(stack_memo *memo, jint max_depth) {
    memo->frames = malloc((size_t)max_depth * sizeof *memo->frames);
    memo->nodes = malloc((size_t)max_depth * sizeof *memo->nodes);
    memo->count = 0;
    memo->capacity = max_depth;
    if (memo->frames == NULL || memo->nodes == NULL) {
        stack_memo_free(memo);
        return -1;
    }
    return 0;
}

void stack_memo_free(stack_memo *memo) {
    free(memo->frames);
    free(memo->nodes);
    memset(memo, 0, sizeof *memo);
}

int32_t frames_add_stack(JNIEnv *jni, method_index *methods, stack_tree *tree, stack_memo *memo,
                         const jvmtiFrameInfo *frames, jint count) {
    jint shared = 0;
    while (shared < count && shared < memo->count && frames[count - 1 - shared].method == memo->frames[shared].method
            && frames[count - 1 - shared].location == memo->frames[shared].location) {
        shared++;
    }
    int32_t node = shared > 0 ? memo->nodes[shared - 1] : STACK_TREE_ROOT;
    int kept = count <= memo->capacity; /* a deeper stack is added, not remembered */
    for (jint k = shared; k < count && node != STACK_TREE_FULL; k++) {
        const jvmtiFrameInfo *frame = &frames[count - 1 - k];
        const method_entry *e = lookup(jni, frame->method);
        int32_t line = e->native ? -2 : frames_line_at(e->lines, e->line_count, frame->location);
        node = stack_tree_add(tree, node, method_index_of(methods, frame->method), line);
        if (kept) {
            memo->frames[k] = *frame;
            memo->nodes[k] = node;
        }
    }
    memo->count = kept && node != STACK_TREE_FULL ? count : 0;
    return node;
}

void frames_write_methods(json_writer *w, JNIEnv *jni, const method_index *methods, size_t first) {
    json_begin_array(w);
    for (size_t i = first; i < method_index_count(methods); i++) {
        /* the cache may have been cleared since the frames were written: this resolves again */
        const method_entry *e = lookup(jni, method_index_method(methods, i));
        frames_write_method(w, e->json, e->json_len, e->native);
    }
    json_end_array(w);
}

void frames_write_method(json_writer *w, const char *json, size_t len, int native) {
    static const char native_tail[] = ",\"native\":true}";
    static const char java_tail[] = ",\"native\":false}";
    if (json == NULL) { /* out of memory when it was made */
        json_null(w);
    } else if (native) {
        json_fragment(w, json, len);
        json_raw_bytes(w, native_tail, sizeof native_tail - 1);
    } else {
        json_fragment(w, json, len);
        json_raw_bytes(w, java_tail, sizeof java_tail - 1);
    }
}

jint frames_monitor_depth(JNIEnv *jni, const jvmtiFrameInfo *frames, jint count, int in_native) {
    jint depth = -1;
    for (jint i = 0; i < count; i++) {
        const method_entry *e = lookup(jni, frames[i].method);
        if (e->may_lock) {
            depth = i + 1;
        } else if (e->native && (i > 0 || in_native) && depth < 1) {
            /* JNI code may have entered monitors: below the top frame (it called back into
             * Java), or at the top while the thread runs native code. They are found at any depth. */
            depth = 1;
        }
    }
    return depth;
}

jint frames_sole_monitor_frame(JNIEnv *jni, const jvmtiFrameInfo *frames, jint count) {
    if (count == 0 || !lookup(jni, frames[0].method)->native) {
        return -1; /* not in the native Object.wait (or wait0) any more */
    }
    jint sole = -1;
    for (jint i = 1; i < count; i++) {
        const method_entry *e = lookup(jni, frames[i].method);
        if (e->native || (e->may_lock && sole >= 0)) {
            return -1;
        }
        if (e->may_lock) {
            sole = i;
        }
    }
    return sole;
}

int frames_method_is(JNIEnv *jni, jmethodID method, const char *class_name, const char *method_name) {
    jvmtiEnv *jvmti = the_agent.jvmti;
    char *name = NULL;
    if (class_name == NULL || method_name == NULL
            || (*jvmti)->GetMethodName(jvmti, method, &name, NULL, NULL) != JVMTI_ERROR_NONE) {
        return 0;
    }
    int same = strcmp(name, method_name) == 0;
    agent_deallocate(name);
    jclass klass = NULL;
    char *signature = NULL;
    if (same && (*jvmti)->GetMethodDeclaringClass(jvmti, method, &klass) == JVMTI_ERROR_NONE
            && (*jvmti)->GetClassSignature(jvmti, klass, &signature, NULL) == JVMTI_ERROR_NONE) {
        char *frame_class = java_class_name(signature);
        same = frame_class != NULL && strcmp(frame_class, class_name) == 0;
        free(frame_class);
        agent_deallocate(signature);
    } else {
        same = 0;
    }
    if (klass != NULL) {
        (*jni)->DeleteLocalRef(jni, klass);
    }
    return same;
}

int frames_frame_is(JNIEnv *jni, const jvmtiFrameInfo *frame, const char *class_name, const char *method_name, jint line) {
    const method_entry *e = lookup(jni, frame->method);
    jint frame_line = e->native ? -2 : frames_line_at(e->lines, e->line_count, frame->location);
    if (frame_line != line && frame_line != -1 && line != -1) {
        return 0;
    }
    return frames_method_is(jni, frame->method, class_name, method_name);
}

int64_t frames_wall_millis(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}
