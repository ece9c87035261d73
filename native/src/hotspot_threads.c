#include "hotspot_threads.h"

#include <string.h>

#include "jni_util.h"
#include "own_memory.h"
#include "vm_structs.h"

/* OSThread::print_on's words for each ThreadState, by the name of its constant in the table. */
static const struct {
    const char *constant;
    const char *text;
} state_words[] = {
    { "ALLOCATED", "allocated" },
    { "INITIALIZED", "initialized" },
    { "RUNNABLE", "runnable" },
    { "MONITOR_WAIT", "waiting for monitor entry" },
    { "CONDVAR_WAIT", "waiting on condition" },
    { "OBJECT_WAIT", "in Object.wait()" },
    { "BREAKPOINTED", "at breakpoint" },
    { "SLEEPING", "sleeping" },
    { "ZOMBIE", "zombie" },
};
#define STATE_COUNT (sizeof state_words / sizeof state_words[0])

/* Looked up once: the table is the JVM's and does not change. */
static struct {
    int looked_up;
    int found;                 /* the offsets below are known */
    uint64_t osthread;         /* JavaThread::_osthread (declared on Thread from JDK 21 on) */
    uint64_t thread_id;        /* OSThread::_thread_id, a 4-byte pid_t */
    int has_state;
    uint64_t state;            /* OSThread::_state, a 4-byte ThreadState */
    int has_value[STATE_COUNT];
    int32_t value[STATE_COUNT];
    jfieldID eetop;
} layout;

static int field_of_size(const vm_structs *vm, const char *type, const char *field, uint64_t size, uint64_t *offset) {
    const char *field_type;
    uint64_t field_size;
    return vm_structs_field(vm, type, field, offset, &field_type) == 0 && field_type != NULL
                   && vm_structs_type_size(vm, field_type, &field_size) == 0 && field_size == size
               ? 0
               : -1;
}

static void look_up(JNIEnv *jni) {
    layout.looked_up = 1;
    vm_structs vm;
    if (vm_structs_find(&vm) != 0) {
        return;
    }
    if (field_of_size(&vm, "JavaThread", "_osthread", sizeof(void *), &layout.osthread) != 0
        && field_of_size(&vm, "Thread", "_osthread", sizeof(void *), &layout.osthread) != 0) {
        return;
    }
    if (field_of_size(&vm, "OSThread", "_thread_id", sizeof(int32_t), &layout.thread_id) != 0) {
        return;
    }
    layout.has_state = field_of_size(&vm, "OSThread", "_state", sizeof(int32_t), &layout.state) == 0;
    for (size_t i = 0; i < STATE_COUNT; i++) {
        layout.has_value[i] = vm_structs_int(&vm, state_words[i].constant, &layout.value[i]) == 0;
    }
    jclass thread_class = (*jni)->FindClass(jni, "java/lang/Thread");
    if (jni_failed(jni, thread_class)) {
        return;
    }
    layout.eetop = (*jni)->GetFieldID(jni, thread_class, "eetop", "J");
    (*jni)->DeleteLocalRef(jni, thread_class);
    layout.found = !jni_failed(jni, layout.eetop);
}

static const char *state_text(int32_t state) {
    for (size_t i = 0; i < STATE_COUNT; i++) {
        if (layout.has_value[i] && layout.value[i] == state) {
            return state_words[i].text;
        }
    }
    return NULL;
}

/* A JavaThread is freed only after its thread cleared eetop (JavaThread::exit, ensure_join), and
 * eetop is never set again: an eetop unchanged after the reads proves they read the live thread. */
static void read_thread(JNIEnv *jni, jthread thread, native_thread *out) {
    *out = (native_thread) { 0 };
    jlong java_thread = (*jni)->GetLongField(jni, thread, layout.eetop);
    uintptr_t os_thread;
    int32_t tid;
    int32_t state;
    if (java_thread == 0
        || own_memory_read((uintptr_t)java_thread + layout.osthread, &os_thread, sizeof os_thread) != 0
        || own_memory_read(os_thread + layout.thread_id, &tid, sizeof tid) != 0
        || (layout.has_state && own_memory_read(os_thread + layout.state, &state, sizeof state) != 0)
        || (*jni)->GetLongField(jni, thread, layout.eetop) != java_thread || tid <= 0) {
        return;
    }
    out->nid = tid;
    out->address = (uint64_t)java_thread;
    out->os_state = layout.has_state ? state_text(state) : NULL;
}

int hotspot_threads_read(JNIEnv *jni, const jthread *threads, size_t count, native_thread *out) {
    if (!layout.looked_up) {
        look_up(jni);
    }
    if (!layout.found) {
        return -1;
    }
    for (size_t i = 0; i < count; i++) {
        read_thread(jni, threads[i], &out[i]);
    }
    return 0;
}
