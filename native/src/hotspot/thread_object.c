#include "thread_object.h"

#include <string.h>

#include "jni_util.h"
#include "own_memory.h"
#include "vm_structs.h"

/* Looked up once: offsets do not change while the JVM runs. */
static struct {
    int looked_up;
    int found;
    uint64_t thread_obj;    /* JavaThread::_threadObj, an OopHandle */
    uint64_t handle_obj;    /* OopHandle::_obj, the oop * of that handle */
    int holder;             /* JDK 19+: daemon, priority and status are on Thread.holder (a Thread$FieldHolder) */
    int narrow;             /* object fields hold compressed references */
    uintptr_t narrow_base;
    int32_t narrow_shift;
    jlong eetop, tid, holder_field, daemon, priority, status;
} layout;

static int read_own(uintptr_t address, void *into, size_t size) {
    own_read r = { address, into, size, 0 };
    own_memory_read_each(&r, 1);
    return r.ok ? 0 : -1;
}

/* Unsafe.objectFieldOffset(c, name), or -1. */
static jlong field_offset(JNIEnv *jni, jobject unsafe, jmethodID offset_of, jclass c, const char *name) {
    jstring field = (*jni)->NewStringUTF(jni, name);
    if (jni_failed(jni, field)) {
        return -1;
    }
    jlong offset = (*jni)->CallLongMethod(jni, unsafe, offset_of, c, field);
    (*jni)->DeleteLocalRef(jni, field);
    return jni_cleared_exception(jni) ? -1 : offset;
}

/* CompressedOops' base and shift: named _narrow_oop._base before JDK 21, _base after. */
static int find_narrow_encoding(const vm_structs *vm) {
    uintptr_t base_at;
    uintptr_t shift_at;
    const char *type;
    if ((vm_structs_static(vm, "CompressedOops", "_base", &base_at, &type) != 0
         && vm_structs_static(vm, "CompressedOops", "_narrow_oop._base", &base_at, &type) != 0)
        || (vm_structs_static(vm, "CompressedOops", "_shift", &shift_at, &type) != 0
            && vm_structs_static(vm, "CompressedOops", "_narrow_oop._shift", &shift_at, &type) != 0)) {
        return -1;
    }
    return read_own(base_at, &layout.narrow_base, sizeof layout.narrow_base) == 0
                   && read_own(shift_at, &layout.narrow_shift, sizeof layout.narrow_shift) == 0
                   && layout.narrow_shift >= 0 && layout.narrow_shift < 32
               ? 0
               : -1;
}

static void look_up_fields(JNIEnv *jni, jobject unsafe, jclass unsafe_class, jclass thread_class) {
    jmethodID offset_of = (*jni)->GetMethodID(jni, unsafe_class, "objectFieldOffset", "(Ljava/lang/Class;Ljava/lang/String;)J");
    jmethodID index_scale = (*jni)->GetMethodID(jni, unsafe_class, "arrayIndexScale", "(Ljava/lang/Class;)I");
    jclass objects = (*jni)->FindClass(jni, "[Ljava/lang/Object;");
    if (jni_cleared_exception(jni) || offset_of == NULL || index_scale == NULL || objects == NULL) {
        return;
    }
    jint scale = (*jni)->CallIntMethod(jni, unsafe, index_scale, objects);
    (*jni)->DeleteLocalRef(jni, objects);
    if (jni_cleared_exception(jni) || (scale != 4 && scale != 8)) {
        return;
    }
    layout.narrow = scale == 4;
    layout.eetop = field_offset(jni, unsafe, offset_of, thread_class, "eetop");
    layout.tid = field_offset(jni, unsafe, offset_of, thread_class, "tid");
    jclass facts_class = thread_class;
    jclass holder_class = (*jni)->FindClass(jni, "java/lang/Thread$FieldHolder");
    if (jni_failed(jni, holder_class)) {
        holder_class = NULL;
    } else {
        layout.holder = 1;
        layout.holder_field = field_offset(jni, unsafe, offset_of, thread_class, "holder");
        facts_class = holder_class;
    }
    layout.daemon = field_offset(jni, unsafe, offset_of, facts_class, "daemon");
    layout.priority = field_offset(jni, unsafe, offset_of, facts_class, "priority");
    layout.status = field_offset(jni, unsafe, offset_of, facts_class, "threadStatus");
    if (holder_class != NULL) {
        (*jni)->DeleteLocalRef(jni, holder_class);
    }
    layout.found = layout.eetop >= 0 && layout.tid >= 0 && layout.daemon >= 0 && layout.priority >= 0 && layout.status >= 0
                   && (!layout.holder || layout.holder_field >= 0);
}

static void look_up(JNIEnv *jni) {
    layout.looked_up = 1;
    vm_structs vm;
    const char *type;
    if (vm_structs_find(&vm) != 0 || vm_structs_field(&vm, "JavaThread", "_threadObj", &layout.thread_obj, &type) != 0
            || vm_structs_field(&vm, "OopHandle", "_obj", &layout.handle_obj, &type) != 0) {
        return;
    }
    jclass unsafe_class = (*jni)->FindClass(jni, "jdk/internal/misc/Unsafe");
    jclass thread_class = unsafe_class == NULL || jni_cleared_exception(jni) ? NULL : (*jni)->FindClass(jni, "java/lang/Thread");
    jfieldID the_unsafe = thread_class == NULL || jni_cleared_exception(jni) ? NULL
            : (*jni)->GetStaticFieldID(jni, unsafe_class, "theUnsafe", "Ljdk/internal/misc/Unsafe;");
    jobject unsafe = the_unsafe == NULL || jni_cleared_exception(jni) ? NULL : (*jni)->GetStaticObjectField(jni, unsafe_class, the_unsafe);
    if (!jni_failed(jni, unsafe)) {
        look_up_fields(jni, unsafe, unsafe_class, thread_class);
        (*jni)->DeleteLocalRef(jni, unsafe);
    }
    if (layout.found && layout.holder && layout.narrow && find_narrow_encoding(&vm) != 0) {
        layout.found = 0;
    }
    if (thread_class != NULL) (*jni)->DeleteLocalRef(jni, thread_class);
    if (unsafe_class != NULL) (*jni)->DeleteLocalRef(jni, unsafe_class);
}

/* The object a reference field at address refers to, and the field's raw bits (to compare
 * after); 0 when it cannot be read or is null. */
static uintptr_t read_reference(uintptr_t address, uint64_t *raw) {
    *raw = 0;
    if (layout.narrow) {
        uint32_t narrow;
        if (read_own(address, &narrow, sizeof narrow) != 0 || narrow == 0) {
            return 0;
        }
        *raw = narrow;
        return layout.narrow_base + ((uintptr_t)narrow << layout.narrow_shift);
    }
    uintptr_t wide;
    if (read_own(address, &wide, sizeof wide) != 0) {
        return 0;
    }
    *raw = wide;
    return wide;
}

/* The Thread object of the JavaThread, with the slot of its OopHandle; 0 when it cannot be read or
 * its eetop is not that JavaThread. */
static uintptr_t thread_object(uintptr_t java_thread, uintptr_t *slot) {
    uintptr_t object = 0;
    jlong eetop = 0;
    if (read_own(java_thread + layout.thread_obj + layout.handle_obj, slot, sizeof *slot) != 0 || *slot == 0
            || read_own(*slot, &object, sizeof object) != 0 || object == 0
            || read_own(object + (uintptr_t)layout.eetop, &eetop, sizeof eetop) != 0 || (uintptr_t)eetop != java_thread) {
        return 0;
    }
    return object;
}

int thread_object_read(JNIEnv *jni, uintptr_t java_thread, thread_object_facts *out) {
    if (!layout.looked_up) {
        look_up(jni);
    }
    if (!layout.found) {
        return -1;
    }
    uintptr_t slot;
    uintptr_t object = thread_object(java_thread, &slot);
    if (object == 0 || read_own(object + (uintptr_t)layout.tid, &out->id, sizeof out->id) != 0) {
        return -1;
    }
    uint64_t holder_raw = 0;
    uintptr_t facts = layout.holder ? read_reference(object + (uintptr_t)layout.holder_field, &holder_raw) : object;
    unsigned char daemon;
    if (facts == 0 || read_own(facts + (uintptr_t)layout.daemon, &daemon, sizeof daemon) != 0
            || read_own(facts + (uintptr_t)layout.priority, &out->priority, sizeof out->priority) != 0
            || read_own(facts + (uintptr_t)layout.status, &out->status, sizeof out->status) != 0) {
        return -1;
    }
    uintptr_t slot_after;
    uint64_t holder_after = 0;
    if (thread_object(java_thread, &slot_after) != object || slot_after != slot
            || (layout.holder && (read_reference(object + (uintptr_t)layout.holder_field, &holder_after) != facts || holder_after != holder_raw))) {
        return -1;
    }
    out->daemon = daemon != 0;
    return daemon <= 1 && out->priority >= 1 && out->priority <= 10 && out->id > 0 ? 0 : -1;
}
