#include "all_threads_dump.h"

#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "frames.h"
#include "jni_util.h"
#include "thread_state.h"

/* A method's place among the dump's: the hash of its JSON, and how many methods with the same hash
 * but another JSON came before it (key_index compares fixed-size keys only). */
typedef struct {
    uint64_t hash;
    uint64_t probe;
} method_key;

/* JNI handles, looked up when first needed and kept for the agent's run; the bean last, its
 * presence saying that every other handle is usable. */
static struct {
    jobject thread_bean;
    jmethodID dump_all_threads;
    jni_accessor info_id;
    jni_accessor info_state;
    jni_accessor info_in_native;
    jni_accessor info_suspended;
    jni_accessor info_stack;
    jni_accessor info_monitors;
    jni_accessor info_synchronizers;
    jni_accessor info_lock;
    jni_accessor info_lock_owner;
    jni_accessor lock_class;
    jni_accessor lock_hash;
    jni_accessor monitor_depth;
    jni_accessor element_class;
    jni_accessor element_method;
    jni_accessor element_file;
    jni_accessor element_line;
    jni_accessor element_module;
    jni_accessor element_module_version;
    jni_accessor state_ordinal;
} handles;

static int find_handles(JNIEnv *jni, jclass bean, jclass info, jclass lock, jclass monitor, jclass element, jclass enumeration) {
    handles.dump_all_threads = (*jni)->GetMethodID(jni, bean, "dumpAllThreads", "(ZZI)[Ljava/lang/management/ThreadInfo;");
    return !jni_failed(jni, handles.dump_all_threads)
        && jni_accessor_find(jni, info, "getThreadId", "threadId", "J", &handles.info_id) == 0
        && jni_accessor_find(jni, info, "getThreadState", "threadState", "Ljava/lang/Thread$State;", &handles.info_state) == 0
        && jni_accessor_find(jni, info, "isInNative", "inNative", "Z", &handles.info_in_native) == 0
        && jni_accessor_find(jni, info, "isSuspended", "suspended", "Z", &handles.info_suspended) == 0
        && jni_accessor_find(jni, info, "getStackTrace", "stackTrace", "[Ljava/lang/StackTraceElement;", &handles.info_stack) == 0
        && jni_accessor_find(jni, info, "getLockedMonitors", "lockedMonitors", "[Ljava/lang/management/MonitorInfo;",
                             &handles.info_monitors) == 0
        && jni_accessor_find(jni, info, "getLockedSynchronizers", "lockedSynchronizers", "[Ljava/lang/management/LockInfo;",
                             &handles.info_synchronizers) == 0
        && jni_accessor_find(jni, info, "getLockInfo", "lock", "Ljava/lang/management/LockInfo;", &handles.info_lock) == 0
        && jni_accessor_find(jni, info, "getLockOwnerId", "lockOwnerId", "J", &handles.info_lock_owner) == 0
        && jni_accessor_find(jni, lock, "getClassName", "className", "Ljava/lang/String;", &handles.lock_class) == 0
        && jni_accessor_find(jni, lock, "getIdentityHashCode", "identityHashCode", "I", &handles.lock_hash) == 0
        && jni_accessor_find(jni, monitor, "getLockedStackDepth", "stackDepth", "I", &handles.monitor_depth) == 0
        && jni_accessor_find(jni, element, "getClassName", "declaringClass", "Ljava/lang/String;", &handles.element_class) == 0
        && jni_accessor_find(jni, element, "getMethodName", "methodName", "Ljava/lang/String;", &handles.element_method) == 0
        && jni_accessor_find(jni, element, "getFileName", "fileName", "Ljava/lang/String;", &handles.element_file) == 0
        && jni_accessor_find(jni, element, "getLineNumber", "lineNumber", "I", &handles.element_line) == 0
        && jni_accessor_find(jni, element, "getModuleName", "moduleName", "Ljava/lang/String;", &handles.element_module) == 0
        && jni_accessor_find(jni, element, "getModuleVersion", "moduleVersion", "Ljava/lang/String;",
                             &handles.element_module_version) == 0
        && jni_accessor_find(jni, enumeration, "ordinal", "ordinal", "I", &handles.state_ordinal) == 0;
}

static int prepare(JNIEnv *jni) {
    if (handles.thread_bean != NULL) {
        return 0;
    }
    static const char *names[] = {
        "java/lang/management/ThreadMXBean", "java/lang/management/ThreadInfo", "java/lang/management/LockInfo",
        "java/lang/management/MonitorInfo", "java/lang/StackTraceElement", "java/lang/Enum",
    };
    jclass classes[sizeof names / sizeof names[0]] = { NULL };
    int found = 1;
    for (size_t i = 0; i < sizeof names / sizeof names[0] && found; i++) {
        classes[i] = (*jni)->FindClass(jni, names[i]);
        found = !jni_failed(jni, classes[i]);
    }
    found = found && find_handles(jni, classes[0], classes[1], classes[2], classes[3], classes[4], classes[5]);
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (classes[i] != NULL) (*jni)->DeleteLocalRef(jni, classes[i]);
    }
    if (!found) {
        return -1;
    }
    jclass factory = (*jni)->FindClass(jni, "java/lang/management/ManagementFactory");
    if (jni_failed(jni, factory)) {
        return -1;
    }
    jmethodID get_bean = (*jni)->GetStaticMethodID(jni, factory, "getThreadMXBean", "()Ljava/lang/management/ThreadMXBean;");
    jobject bean = jni_failed(jni, get_bean) ? NULL : (*jni)->CallStaticObjectMethod(jni, factory, get_bean);
    (*jni)->DeleteLocalRef(jni, factory);
    if (jni_failed(jni, bean)) {
        return -1;
    }
    handles.thread_bean = (*jni)->NewGlobalRef(jni, bean);
    (*jni)->DeleteLocalRef(jni, bean);
    return handles.thread_bean != NULL ? 0 : -1;
}

static void release(JNIEnv *jni) {
    if (handles.thread_bean != NULL) (*jni)->DeleteGlobalRef(jni, handles.thread_bean);
    memset(&handles, 0, sizeof handles);
}
AGENT_RELEASE(release)

static int read_boolean(JNIEnv *jni, jobject target, const jni_accessor *value) {
    jboolean b = value->field != NULL ? (*jni)->GetBooleanField(jni, target, value->field)
                                      : (*jni)->CallBooleanMethod(jni, target, value->getter);
    return !jni_cleared_exception(jni) && b;
}

static uint64_t fnv1a(const char *bytes, size_t len, int native) {
    uint64_t h = 0xcbf29ce484222325ull ^ (uint64_t)native;
    for (size_t i = 0; i < len; i++) {
        h = (h ^ (unsigned char)bytes[i]) * 0x100000001b3ull;
    }
    return h;
}

/* The index of the method (its names are copied when it is new); -1 when out of memory. */
static int32_t method_of(all_threads_dump *dump, const char *class_name, const char *method, const char *file,
                         const char *module, int native) {
    size_t len = 0;
    char *json = frames_method_json(class_name, method, file, module, &len);
    if (json == NULL) {
        return -1;
    }
    method_key key = { fnv1a(json, len, native), 0 };
    for (;; key.probe++) {
        int32_t index = key_index_of(&dump->method_keys, &key);
        if (index < 0) {
            free(json);
            return -1;
        }
        if ((size_t)index < dump->method_count) {
            const dumped_method *m = &dump->methods[index];
            if (m->native == native && m->json_len == len && memcmp(m->json, json, len) == 0) {
                free(json);
                return index;
            }
            continue; /* the same hash, another method */
        }
        if ((size_t)index > dump->method_count) { /* a key left without its method when memory ran out */
            free(json);
            return -1;
        }
        if (dump->method_count == dump->method_capacity) {
            size_t capacity = dump->method_capacity > 0 ? 2 * dump->method_capacity : 256;
            dumped_method *bigger = realloc(dump->methods, capacity * sizeof *bigger);
            if (bigger == NULL) {
                free(json);
                return -1;
            }
            dump->methods = bigger;
            dump->method_capacity = capacity;
        }
        dump->methods[dump->method_count++] = (dumped_method) {
            json, len, native, class_name != NULL ? strdup(class_name) : NULL, method != NULL ? strdup(method) : NULL
        };
        return index;
    }
}

/* "name@version", "name" or NULL (an unnamed module), as a thread dump names the module. */
static char *module_of(JNIEnv *jni, jobject element) {
    char *name = jni_read_string(jni, element, &handles.element_module);
    char *version = name != NULL ? jni_read_string(jni, element, &handles.element_module_version) : NULL;
    if (version == NULL) {
        return name;
    }
    size_t length = strlen(name) + 1 + strlen(version) + 1;
    char *both = malloc(length);
    if (both != NULL) {
        snprintf(both, length, "%s@%s", name, version);
    }
    free(name);
    free(version);
    return both;
}

/* What the top frame says that Thread.State does not: parked, in Object.wait, sleeping (what
 * JVMTI's detail bits and jstack's "(parking)" say, from the thread's status field). */
static jint detail_of_top(const char *class_name, const char *method) {
    if (class_name == NULL || method == NULL) {
        return 0;
    }
    if ((strcmp(class_name, "jdk.internal.misc.Unsafe") == 0 || strcmp(class_name, "sun.misc.Unsafe") == 0)
            && strcmp(method, "park") == 0) {
        return JVMTI_THREAD_STATE_PARKED;
    }
    if (strcmp(class_name, "java.lang.Object") == 0 && (strcmp(method, "wait") == 0 || strcmp(method, "wait0") == 0)) {
        return JVMTI_THREAD_STATE_IN_OBJECT_WAIT;
    }
    if (strcmp(class_name, "java.lang.Thread") == 0 && strncmp(method, "sleep", 5) == 0) {
        return JVMTI_THREAD_STATE_SLEEPING;
    }
    return 0;
}

/* The frames of a ThreadInfo, at most max_depth; returns the detail bits its top frame tells, or
 * -1 when they could not be read. */
static jint read_frames(JNIEnv *jni, jobject info, jint max_depth, all_threads_dump *dump, dumped_thread *t) {
    jobjectArray stack = jni_read_object(jni, info, &handles.info_stack);
    if (jni_failed(jni, stack)) {
        return -1;
    }
    jsize length = (*jni)->GetArrayLength(jni, stack);
    jint count = length > max_depth ? max_depth : length;
    t->truncated = length > max_depth;
    t->frames = calloc(count > 0 ? (size_t)count : 1, sizeof *t->frames);
    jint detail = t->frames != NULL ? 0 : -1;
    for (jint i = 0; i < count && t->frames != NULL; i++) {
        jobject element = (*jni)->GetObjectArrayElement(jni, stack, i);
        if (jni_failed(jni, element)) {
            detail = -1;
            break;
        }
        char *class_name = jni_read_string(jni, element, &handles.element_class);
        char *method = jni_read_string(jni, element, &handles.element_method);
        char *file = jni_read_string(jni, element, &handles.element_file);
        char *module = module_of(jni, element);
        jint line = jni_read_int(jni, element, &handles.element_line);
        if (jni_cleared_exception(jni)) {
            line = -1;
        }
        if (i == 0) {
            detail = detail_of_top(class_name, method);
        }
        t->frames[t->frame_count++] = (dumped_frame) { method_of(dump, class_name, method, file, module, line == -2), line };
        free(class_name);
        free(method);
        free(file);
        free(module);
        (*jni)->DeleteLocalRef(jni, element);
    }
    (*jni)->DeleteLocalRef(jni, stack);
    return detail;
}

static int read_lock_info(JNIEnv *jni, jobject info, lock_ref *ref) {
    ref->class_name = jni_read_string(jni, info, &handles.lock_class);
    if (ref->class_name == NULL) {
        return -1;
    }
    ref->hash = jni_read_int(jni, info, &handles.lock_hash);
    if (jni_cleared_exception(jni)) {
        free(ref->class_name);
        ref->class_name = NULL;
        return -1;
    }
    return 0;
}

/* The LockInfos (or MonitorInfos, with depths when depths is not NULL) of an array field of info;
 * returns how many were read into *refs (malloc'd), or -1. */
static jint read_locks(JNIEnv *jni, jobject info, const jni_accessor *field, lock_ref **refs, jint **depths) {
    jobjectArray array = jni_read_object(jni, info, field);
    if (jni_failed(jni, array)) {
        return -1;
    }
    jsize length = (*jni)->GetArrayLength(jni, array);
    *refs = calloc(length > 0 ? (size_t)length : 1, sizeof **refs);
    if (depths != NULL) {
        *depths = calloc(length > 0 ? (size_t)length : 1, sizeof **depths);
    }
    jint count = 0;
    int failed = *refs == NULL || (depths != NULL && *depths == NULL);
    for (jsize i = 0; i < length && !failed; i++) {
        jobject lock = (*jni)->GetObjectArrayElement(jni, array, i);
        failed = jni_failed(jni, lock) || read_lock_info(jni, lock, &(*refs)[count]) != 0;
        if (!failed && depths != NULL) {
            (*depths)[count] = jni_read_int(jni, lock, &handles.monitor_depth);
            failed = jni_cleared_exception(jni);
            if (failed) {
                free((*refs)[count].class_name);
            }
        }
        count += !failed;
        if (lock != NULL) (*jni)->DeleteLocalRef(jni, lock);
    }
    (*jni)->DeleteLocalRef(jni, array);
    if (!failed) {
        return count;
    }
    for (jint i = 0; *refs != NULL && i < count; i++) {
        free((*refs)[i].class_name);
    }
    free(*refs);
    *refs = NULL;
    if (depths != NULL) {
        free(*depths);
        *depths = NULL;
    }
    return -1;
}

/* What the thread owns and waits for, as the same ThreadInfo saw it. */
static int read_locks_of(JNIEnv *jni, jobject info, dumped_thread *t) {
    lock_facts *f = &t->locks;
    f->owner_id = -1;
    lock_ref *monitors = NULL;
    jint *depths = NULL;
    jint owned = read_locks(jni, info, &handles.info_monitors, &monitors, &depths);
    int status = owned < 0 ? -1 : 0;
    f->owned = owned > 0 ? calloc((size_t)owned, sizeof *f->owned) : NULL;
    for (jint i = 0; i < owned; i++) {
        if (f->owned != NULL) {
            f->owned[f->owned_count++] = (owned_monitor) { monitors[i], depths[i] };
        } else {
            free(monitors[i].class_name);
        }
    }
    free(monitors);
    free(depths);
    jint synchronizers = read_locks(jni, info, &handles.info_synchronizers, &t->synchronizers, NULL);
    t->synchronizer_count = synchronizers > 0 ? synchronizers : 0;
    status |= synchronizers < 0 ? -1 : 0;

    wait_kind kind = (t->state & JVMTI_THREAD_STATE_BLOCKED_ON_MONITOR_ENTER) != 0 ? WAIT_ENTER
        : (t->state & JVMTI_THREAD_STATE_IN_OBJECT_WAIT) != 0 ? WAIT_NOTIFY
        : (t->state & JVMTI_THREAD_STATE_PARKED) != 0 ? WAIT_PARK : WAIT_NONE;
    if (kind == WAIT_NONE) {
        return status;
    }
    jobject lock = jni_read_object(jni, info, &handles.info_lock);
    if (jni_failed(jni, lock)) { /* none: a parked thread without a blocker, or a monitor it does not name */
        return status;
    }
    if (read_lock_info(jni, lock, &f->waits_for) == 0) {
        f->waiting = kind;
        f->owner_id = kind == WAIT_NOTIFY ? -1 : jni_read_long(jni, info, &handles.info_lock_owner);
        if (jni_cleared_exception(jni)) {
            f->owner_id = -1;
            f->owner_unknown = 1;
        }
    }
    (*jni)->DeleteLocalRef(jni, lock);
    return status;
}

/* One ThreadInfo; -1 when some of it could not be read (t then holds what was). */
static int read_thread(JNIEnv *jni, jobject info, jint max_depth, all_threads_dump *dump, dumped_thread *t) {
    t->id = jni_read_long(jni, info, &handles.info_id);
    if (jni_cleared_exception(jni)) {
        return -1;
    }
    jobject state = jni_read_object(jni, info, &handles.info_state);
    if (jni_cleared_exception(jni) || state == NULL) {
        return -1;
    }
    jint ordinal = jni_read_int(jni, state, &handles.state_ordinal);
    (*jni)->DeleteLocalRef(jni, state);
    if (jni_cleared_exception(jni) || thread_state_of_java_ordinal(ordinal, &t->state) != 0) {
        return -1;
    }
    if (read_boolean(jni, info, &handles.info_in_native)) {
        t->state |= JVMTI_THREAD_STATE_IN_NATIVE;
    }
    if (read_boolean(jni, info, &handles.info_suspended)) {
        t->state |= JVMTI_THREAD_STATE_SUSPENDED;
    }
    jint detail = read_frames(jni, info, max_depth, dump, t);
    if (detail < 0) {
        return -1;
    }
    if ((t->state & JVMTI_THREAD_STATE_WAITING) != 0) {
        t->state |= detail;
    }
    return read_locks_of(jni, info, t);
}

static int by_id(const void *a, const void *b) {
    const dumped_thread *x = a;
    const dumped_thread *y = b;
    return x->id < y->id ? -1 : x->id > y->id;
}

int all_threads_dump_take(JNIEnv *jni, jint max_depth, all_threads_dump *dump) {
    memset(dump, 0, sizeof *dump);
    key_index_init(&dump->method_keys, sizeof(method_key));
    if (prepare(jni) != 0) {
        return -1;
    }
    /* one more frame than shown, which tells a stack that was cut */
    jobjectArray infos = (*jni)->CallObjectMethod(jni, handles.thread_bean, handles.dump_all_threads, JNI_TRUE, JNI_TRUE,
                                                  max_depth + 1);
    if (jni_failed(jni, infos)) {
        return -1;
    }
    jsize length = (*jni)->GetArrayLength(jni, infos);
    dump->threads = calloc(length > 0 ? (size_t)length : 1, sizeof *dump->threads);
    int status = dump->threads != NULL ? 0 : -1;
    for (jsize i = 0; i < length && status == 0; i++) {
        if ((*jni)->PushLocalFrame(jni, 16) != 0) {
            jni_cleared_exception(jni);
            status = -1;
            break;
        }
        jobject info = (*jni)->GetObjectArrayElement(jni, infos, i);
        if (!jni_failed(jni, info)) { /* null: a thread that ended while the dump was made */
            status = read_thread(jni, info, max_depth, dump, &dump->threads[dump->count++]);
        }
        (*jni)->PopLocalFrame(jni, NULL);
    }
    (*jni)->DeleteLocalRef(jni, infos);
    if (status != 0) {
        all_threads_dump_free(dump);
        return -1;
    }
    qsort(dump->threads, dump->count, sizeof *dump->threads, by_id);
    return 0;
}

const dumped_thread *all_threads_dump_find(const all_threads_dump *dump, jlong id) {
    dumped_thread key = { .id = id };
    return dump->count == 0 ? NULL : bsearch(&key, dump->threads, dump->count, sizeof *dump->threads, by_id);
}

void all_threads_dump_free(all_threads_dump *dump) {
    for (size_t i = 0; i < dump->count; i++) {
        dumped_thread *t = &dump->threads[i];
        free(t->frames);
        lock_facts_free(&t->locks, 1);
        for (jint k = 0; k < t->synchronizer_count; k++) {
            free(t->synchronizers[k].class_name);
        }
        free(t->synchronizers);
    }
    free(dump->threads);
    for (size_t i = 0; i < dump->method_count; i++) {
        free(dump->methods[i].json);
        free(dump->methods[i].class_name);
        free(dump->methods[i].method_name);
    }
    free(dump->methods);
    key_index_free(&dump->method_keys);
    memset(dump, 0, sizeof *dump);
}
