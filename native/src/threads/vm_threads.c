#include "vm_threads.h"

#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "elf_symbol.h"
#include "hotspot_threads.h"
#include "jni_util.h"
#include "own_memory.h"
#include "task_stat.h"
#include "thread_facts.h"
#include "thread_state.h"
#include "vm_structs.h"

/* Past these a list is taken as misread. */
#define MAX_JAVA_THREADS 1000000u
#define MAX_NON_JAVA_THREADS 10000u
/* The lists are read again when a thread started or ended meanwhile, at most this often. */
#define ATTEMPTS 3
/* Room for threads that start between counting the internal threads and listing them. */
#define SPARE_NAMES 16

/* Looked up once. */
static struct {
    int looked_up;
    jobject hotspot_thread;      /* a sun.management.HotspotThread (global); NULL: no names */
    jmethodID count;             /* getInternalThreadCount() */
    jmethodID times;             /* getInternalThreadTimes0(String[], long[]) */
    jclass string_class;         /* global */
    uintptr_t java_thread_list;  /* &ThreadsSMRSupport::_java_thread_list; 0: unknown */
    uint64_t list_length;        /* ThreadsList::_length, a uint */
    uint64_t list_threads;       /* ThreadsList::_threads, a JavaThread *const * */
    uintptr_t non_java_head;     /* &NonJavaThread::_the_list._head, the List's first member; 0: unknown */
    uint64_t non_java_next;      /* NonJavaThread::_next */
} vm;

/* A list of HotSpot Threads by address. */
typedef struct {
    uintptr_t *threads;
    size_t count;
    uintptr_t list;              /* the ThreadsList read (Java threads only) */
    int read;                    /* 0: could not be read */
} thread_addresses;

static int read_own(uintptr_t address, void *into, size_t size) {
    own_read r = { address, into, size, 0 };
    own_memory_read_each(&r, 1);
    return r.ok ? 0 : -1;
}

static void look_up_names(JNIEnv *jni) {
    jclass helper = (*jni)->FindClass(jni, "sun/management/ManagementFactoryHelper");
    jclass hotspot = helper == NULL || jni_cleared_exception(jni) ? NULL : (*jni)->FindClass(jni, "sun/management/HotspotThread");
    jmethodID get_vm = hotspot == NULL || jni_cleared_exception(jni) ? NULL
            : (*jni)->GetStaticMethodID(jni, helper, "getVMManagement", "()Lsun/management/VMManagement;");
    jmethodID make = get_vm == NULL || jni_cleared_exception(jni) ? NULL
            : (*jni)->GetMethodID(jni, hotspot, "<init>", "(Lsun/management/VMManagement;)V");
    vm.count = make == NULL || jni_cleared_exception(jni) ? NULL : (*jni)->GetMethodID(jni, hotspot, "getInternalThreadCount", "()I");
    vm.times = vm.count == NULL || jni_cleared_exception(jni) ? NULL
            : (*jni)->GetMethodID(jni, hotspot, "getInternalThreadTimes0", "([Ljava/lang/String;[J)I");
    jobject management = vm.times == NULL || jni_cleared_exception(jni) ? NULL : (*jni)->CallStaticObjectMethod(jni, helper, get_vm);
    jobject instance = jni_failed(jni, management) ? NULL : (*jni)->NewObject(jni, hotspot, make, management);
    vm.string_class = jni_failed(jni, instance) ? NULL : jni_global_class(jni, "java/lang/String");
    if (vm.string_class != NULL) {
        vm.hotspot_thread = (*jni)->NewGlobalRef(jni, instance);
    }
    if (instance != NULL) (*jni)->DeleteLocalRef(jni, instance);
    if (management != NULL) (*jni)->DeleteLocalRef(jni, management);
    if (hotspot != NULL) (*jni)->DeleteLocalRef(jni, hotspot);
    if (helper != NULL) (*jni)->DeleteLocalRef(jni, helper);
}

/* The NonJavaThread list is not in HotSpot's table: its head is found in libjvm's symbol table,
 * and each thread's _next is NonJavaThread's one field, right after Thread's, which the table
 * shows by the two types' sizes. */
static void look_up_lists(void) {
    vm_structs table;
    const char *type;
    uint64_t thread_size;
    uint64_t non_java_size;
    if (vm_structs_find(&table) != 0) {
        return;
    }
    if (vm_structs_static(&table, "ThreadsSMRSupport", "_java_thread_list", &vm.java_thread_list, &type) != 0
            || vm_structs_field(&table, "ThreadsList", "_length", &vm.list_length, &type) != 0
            || vm_structs_field(&table, "ThreadsList", "_threads", &vm.list_threads, &type) != 0) {
        vm.java_thread_list = 0;
    }
    const char *list_symbol[] = { "_ZN13NonJavaThread9_the_listE" };
    uintptr_t list;
    if (vm_structs_type_size(&table, "Thread", &thread_size) == 0 && vm_structs_type_size(&table, "NonJavaThread", &non_java_size) == 0
            && non_java_size == thread_size + sizeof(void *) && elf_symbols_find("gHotSpotVMStructs", list_symbol, 1, &list) == 1) {
        vm.non_java_head = list;
        vm.non_java_next = thread_size;
    }
}

static void look_up(JNIEnv *jni) {
    vm.looked_up = 1;
    look_up_names(jni);
    look_up_lists();
}

void vm_threads_release(JNIEnv *jni) {
    if (vm.hotspot_thread != NULL) (*jni)->DeleteGlobalRef(jni, vm.hotspot_thread);
    if (vm.string_class != NULL) (*jni)->DeleteGlobalRef(jni, vm.string_class);
    memset(&vm, 0, sizeof vm);
}
AGENT_RELEASE(vm_threads_release)

/* Names and CPU times of the internal threads into out (names malloc'd). Returns 0, or -1. */
static int read_internal_threads(JNIEnv *jni, vm_thread_list *out) {
    jint count = (*jni)->CallIntMethod(jni, vm.hotspot_thread, vm.count);
    if (jni_cleared_exception(jni) || count < 0) {
        return -1;
    }
    jint room = count + SPARE_NAMES;
    jint got = -1;
    for (int attempt = 0; attempt < ATTEMPTS && got < 0; attempt++, room *= 2) {
        if ((*jni)->PushLocalFrame(jni, 8) != 0) {
            jni_cleared_exception(jni);
            return -1;
        }
        jobjectArray names = (*jni)->NewObjectArray(jni, room, vm.string_class, NULL);
        jlongArray times = jni_failed(jni, names) ? NULL : (*jni)->NewLongArray(jni, room);
        jint filled = jni_failed(jni, times) ? -1 : (*jni)->CallIntMethod(jni, vm.hotspot_thread, vm.times, names, times);
        if (jni_cleared_exception(jni) || filled < 0) {
            (*jni)->PopLocalFrame(jni, NULL);
            return -1;
        }
        if (filled < room) { /* a full array may have left some out */
            got = filled;
            out->threads = calloc(filled > 0 ? (size_t)filled : 1, sizeof *out->threads);
            jlong *cpu = malloc((filled > 0 ? (size_t)filled : 1) * sizeof *cpu);
            if (out->threads == NULL || cpu == NULL) {
                free(cpu);
                (*jni)->PopLocalFrame(jni, NULL);
                return -1;
            }
            (*jni)->GetLongArrayRegion(jni, times, 0, filled, cpu);
            for (jint i = 0; i < filled && !jni_cleared_exception(jni); i++) {
                jstring name = (*jni)->GetObjectArrayElement(jni, names, i);
                const char *chars = jni_failed(jni, name) ? NULL : (*jni)->GetStringUTFChars(jni, name, NULL);
                char *copy = chars == NULL ? NULL : strdup(chars);
                if (chars != NULL) (*jni)->ReleaseStringUTFChars(jni, name, chars);
                if (name != NULL) (*jni)->DeleteLocalRef(jni, name);
                if (copy == NULL) {
                    continue; /* nothing known of it without its name */
                }
                out->threads[out->count++] = (vm_thread) { .name = copy, .cpu_nanos = cpu[i] >= 0 ? cpu[i] : -1 };
            }
            free(cpu);
        }
        (*jni)->PopLocalFrame(jni, NULL);
    }
    return got < 0 ? -1 : 0;
}

static void read_java_threads(thread_addresses *out) {
    memset(out, 0, sizeof *out);
    uint32_t length;
    uintptr_t array;
    if (vm.java_thread_list == 0 || read_own(vm.java_thread_list, &out->list, sizeof out->list) != 0 || out->list == 0
            || read_own(out->list + vm.list_length, &length, sizeof length) != 0 || length > MAX_JAVA_THREADS
            || read_own(out->list + vm.list_threads, &array, sizeof array) != 0) {
        return;
    }
    out->threads = malloc((length > 0 ? length : 1) * sizeof *out->threads);
    if (out->threads != NULL && (length == 0 || read_own(array, out->threads, length * sizeof *out->threads) == 0)) {
        out->count = length;
        out->read = 1;
    }
}

static void read_non_java_threads(thread_addresses *out) {
    memset(out, 0, sizeof *out);
    uintptr_t thread;
    if (vm.non_java_head == 0 || read_own(vm.non_java_head, &thread, sizeof thread) != 0) {
        return;
    }
    out->threads = malloc(64 * sizeof *out->threads);
    size_t room = 64;
    while (out->threads != NULL && thread != 0 && out->count < MAX_NON_JAVA_THREADS) {
        if (out->count == room) {
            uintptr_t *bigger = realloc(out->threads, 2 * room * sizeof *bigger);
            if (bigger == NULL) {
                return;
            }
            out->threads = bigger;
            room *= 2;
        }
        out->threads[out->count++] = thread;
        if (read_own(thread + vm.non_java_next, &thread, sizeof thread) != 0) {
            return;
        }
    }
    out->read = out->threads != NULL && thread == 0;
}

/* Whether two reads of a list found the same threads; two reads that both failed found nothing. */
static int same_addresses(const thread_addresses *a, const thread_addresses *b) {
    if (!a->read && !b->read) {
        return 1;
    }
    return a->read && b->read && a->list == b->list && a->count == b->count
           && (a->count == 0 || memcmp(a->threads, b->threads, a->count * sizeof *a->threads) == 0);
}

static int by_address(const void *a, const void *b) {
    uintptr_t x = *(const uintptr_t *)a;
    uintptr_t y = *(const uintptr_t *)b;
    return (x > y) - (x < y);
}

/* Whether the kernel's name of the thread with that nid is what HotSpot gave it from name: its
 * first NATIVE_IDS_COMM_BYTES bytes. */
static int named_so(pid_t nid, const char *name) {
    char comm[NATIVE_IDS_COMM_BYTES + 1];
    size_t kept = strlen(name) < NATIVE_IDS_COMM_BYTES ? strlen(name) : NATIVE_IDS_COMM_BYTES;
    return nid > 0 && native_ids_comm(nid, comm) == 0 && strlen(comm) == kept && strncmp(comm, name, kept) == 0;
}

/* The hidden JavaThreads are those of the threads list JVMTI does not show; the internal threads'
 * list starts with them, in the same order. A thread of the list that JVMTI does not show for
 * another reason (starting or exiting) has another name, and is passed over. Places them in out,
 * and returns how many, or -1 when one's OS thread could not be told (then none is placed). */
static long place_hidden(JNIEnv *jni, const thread_addresses *java, const uintptr_t *shown, size_t shown_count, vm_thread_list *out) {
    uintptr_t *hidden = malloc((java->count > 0 ? java->count : 1) * sizeof *hidden);
    native_thread *natives = calloc(java->count > 0 ? java->count : 1, sizeof *natives);
    size_t hidden_count = 0;
    long placed = -1;
    if (hidden != NULL && natives != NULL) {
        for (size_t i = 0; i < java->count; i++) {
            if (bsearch(&java->threads[i], shown, shown_count, sizeof *shown, by_address) == NULL) {
                hidden[hidden_count++] = java->threads[i];
            }
        }
        placed = hotspot_threads_read_native(jni, hidden, hidden_count, natives) == 0 ? 0 : -1;
    }
    for (size_t i = 0; placed >= 0 && i < hidden_count; i++) {
        if (natives[i].nid == 0) {
            placed = -1;
        } else if ((size_t)placed < out->count && named_so(natives[i].nid, out->threads[placed].name)) {
            vm_thread *t = &out->threads[placed++];
            t->kind = VM_THREAD_HIDDEN_JAVA;
            t->native = natives[i];
            t->has_object = thread_object_read(jni, hidden[i], &t->object) == 0;
        }
    }
    for (long i = 0; placed < 0 && i < (long)out->count; i++) {
        out->threads[i] = (vm_thread) { .name = out->threads[i].name, .cpu_nanos = out->threads[i].cpu_nanos };
    }
    free(hidden);
    free(natives);
    return placed;
}

/* The internal threads from first on are the non-Java ones, in the order of their list: placed
 * when every one's OS thread has its name, else none is. */
static void place_non_java(JNIEnv *jni, const thread_addresses *non_java, size_t first, vm_thread_list *out) {
    if (out->count - first != non_java->count) {
        return;
    }
    native_thread *natives = calloc(non_java->count > 0 ? non_java->count : 1, sizeof *natives);
    if (natives == NULL || hotspot_threads_read_native(jni, non_java->threads, non_java->count, natives) != 0) {
        free(natives);
        return;
    }
    int all = 1;
    for (size_t i = 0; i < non_java->count && all; i++) {
        all = named_so(natives[i].nid, out->threads[first + i].name);
    }
    for (size_t i = 0; i < non_java->count && all; i++) {
        out->threads[first + i].kind = VM_THREAD_NON_JAVA;
        out->threads[first + i].native = natives[i];
    }
    free(natives);
}

/* The threads not placed get a nid only where their name tells their task for certain. That reads
 * the name of every task of the process (docs/performance.md): only when some thread is unplaced. */
static void name_unplaced(vm_thread_list *out) {
    size_t unplaced = 0;
    for (size_t i = 0; i < out->count; i++) {
        unplaced += out->threads[i].kind == VM_THREAD_UNPLACED;
    }
    if (unplaced == 0) {
        return;
    }
    const char **names = calloc(out->count > 0 ? out->count : 1, sizeof *names);
    native_thread *natives = calloc(out->count > 0 ? out->count : 1, sizeof *natives);
    if (names != NULL && natives != NULL) {
        for (size_t i = 0; i < out->count; i++) {
            names[i] = out->threads[i].kind == VM_THREAD_UNPLACED ? out->threads[i].name : NULL;
        }
        native_ids_from_names(names, out->count, natives);
        for (size_t i = 0; i < out->count; i++) {
            if (names[i] != NULL) {
                out->threads[i].native.nid = natives[i].nid;
            }
        }
    }
    free(names);
    free(natives);
}

/* Clears the nid of every thread whose nid is not a task of this process or is also another
 * thread's, the Java threads' included. */
static void keep_own_nids(const native_thread *visible, size_t visible_count, vm_thread_list *out) {
    native_thread *all = calloc(out->count + visible_count + 1, sizeof *all);
    if (all == NULL) {
        for (size_t i = 0; i < out->count; i++) {
            out->threads[i].native = (native_thread) { 0 };
        }
        return;
    }
    for (size_t i = 0; i < out->count; i++) {
        all[i] = out->threads[i].native;
    }
    memcpy(all + out->count, visible, visible_count * sizeof *visible);
    native_ids_keep_own(all, out->count + visible_count);
    for (size_t i = 0; i < out->count; i++) {
        out->threads[i].native = all[i];
    }
    free(all);
}

int vm_threads_collect(JNIEnv *jni, const native_thread *visible, size_t visible_count, vm_thread_list *out) {
    memset(out, 0, sizeof *out);
    if (!vm.looked_up) {
        look_up(jni);
    }
    if (vm.hotspot_thread == NULL) {
        return -1;
    }
    uintptr_t *shown = malloc((visible_count > 0 ? visible_count : 1) * sizeof *shown);
    size_t shown_count = 0;
    for (size_t i = 0; shown != NULL && i < visible_count; i++) {
        if (visible[i].address != 0) {
            shown[shown_count++] = (uintptr_t)visible[i].address;
        }
    }
    if (shown != NULL) {
        qsort(shown, shown_count, sizeof *shown, by_address);
    }
    int status = 0;
    for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
        thread_addresses java_before, java_after, non_java_before, non_java_after;
        read_java_threads(&java_before);
        read_non_java_threads(&non_java_before);
        status = read_internal_threads(jni, out);
        long hidden = status == 0 && shown != NULL && java_before.read ? place_hidden(jni, &java_before, shown, shown_count, out) : -1;
        read_java_threads(&java_after);
        read_non_java_threads(&non_java_after);
        int settled = same_addresses(&java_before, &java_after) && same_addresses(&non_java_before, &non_java_after);
        if (status == 0 && hidden >= 0 && settled && non_java_before.read) {
            place_non_java(jni, &non_java_before, (size_t)hidden, out);
        }
        free(java_before.threads);
        free(java_after.threads);
        free(non_java_before.threads);
        free(non_java_after.threads);
        if (status != 0 || hidden < 0 || settled || attempt == ATTEMPTS) {
            if (status == 0 && hidden >= 0 && !settled) {
                for (size_t i = 0; i < out->count; i++) { /* the last lists read moved under the reads */
                    out->threads[i] = (vm_thread) { .name = out->threads[i].name, .cpu_nanos = out->threads[i].cpu_nanos };
                }
            }
            break;
        }
        vm_threads_free(out);
    }
    free(shown);
    if (status != 0) {
        vm_threads_free(out);
        return -1;
    }
    name_unplaced(out);
    keep_own_nids(visible, visible_count, out);
    for (size_t i = 0; i < out->count; i++) {
        native_thread *native = &out->threads[i].native;
        native->has_task = native->nid > 0 && task_stat_read(native->nid, &native->task) == 0;
    }
    return 0;
}

void vm_threads_write(json_writer *w, const vm_thread_list *list) {
    json_begin_array_field(w, "vmThreads");
    for (size_t i = 0; i < list->count; i++) {
        const vm_thread *t = &list->threads[i];
        json_begin_object(w);
        json_field_mutf8(w, "name", t->name);
        if (t->kind != VM_THREAD_UNPLACED) {
            json_field_bool(w, "javaThread", t->kind == VM_THREAD_HIDDEN_JAVA);
        }
        if (t->has_object) {
            json_field_int(w, "id", t->object.id);
            json_field_bool(w, "daemon", t->object.daemon);
            json_field_int(w, "priority", t->object.priority);
            json_field_cstring(w, "state", thread_state_name(t->object.status));
        }
        json_field_int(w, "cpuNanos", t->cpu_nanos);
        thread_facts_write_native(w, &t->native);
        json_end_object(w);
    }
    json_end_array(w);
}

void vm_threads_free(vm_thread_list *list) {
    for (size_t i = 0; i < list->count; i++) {
        free(list->threads[i].name);
    }
    free(list->threads);
    memset(list, 0, sizeof *list);
}

void vm_threads_read_usage(vm_thread_list *list) {
    for (size_t i = 0; i < list->count; i++) {
        native_thread *native = &list->threads[i].native;
        native->has_cpu_apart = native->nid > 0 && task_stat_read_cpu(native->nid, &native->cpu_apart) == 0;
    }
}

void vm_threads_write_usage(json_writer *w, const vm_thread_list *list) {
    json_begin_array_field(w, "vmUsage");
    for (size_t i = 0; i < list->count; i++) {
        const native_thread *native = &list->threads[i].native;
        if (native->has_cpu_apart) {
            json_begin_object(w);
            json_field_int(w, "nid", native->nid);
            json_field_int(w, "userNanos", native->cpu_apart.user_nanos);
            json_field_int(w, "systemNanos", native->cpu_apart.system_nanos);
            json_end_object(w);
        }
    }
    json_end_array(w);
}
