/* Finding the virtual threads through the JDK's thread containers: see virtual_threads.h. */
#include "virtual_threads.h"

#include <string.h>

#include "agent.h"
#include "jni_util.h"

#define CONTAINER_DEPTH_MAX 64

static struct {
    int ready;
    jclass containers;
    jmethodID root;
    jmethodID container_threads;
    jmethodID container_children;
    jmethodID stream_to_array;
    virtual_thread_layout layout;
} vt;

static void release(JNIEnv *jni) {
    jobject refs[] = { vt.containers, vt.layout.virtual_thread };
    for (size_t i = 0; i < sizeof refs / sizeof refs[0]; i++) {
        if (refs[i] != NULL) {
            (*jni)->DeleteGlobalRef(jni, refs[i]);
        }
    }
    memset(&vt, 0, sizeof vt);
}
AGENT_RELEASE(release)

static jint static_int(JNIEnv *jni, jclass klass, const char *field) {
    jfieldID id = (*jni)->GetStaticFieldID(jni, klass, field, "I");
    if (jni_failed(jni, id)) {
        return -1;
    }
    jint value = (*jni)->GetStaticIntField(jni, klass, id);
    return jni_cleared_exception(jni) ? -1 : value;
}

const char *virtual_threads_prepare(JNIEnv *jni, const virtual_thread_layout **layout) {
    *layout = &vt.layout;
    if (vt.ready) {
        return NULL;
    }
    virtual_thread_layout *l = &vt.layout;
    vt.containers = jni_global_class(jni, "jdk/internal/vm/ThreadContainers");
    jclass container = (*jni)->FindClass(jni, "jdk/internal/vm/ThreadContainer");
    if (jni_failed(jni, container)) container = NULL;
    l->virtual_thread = jni_global_class(jni, "java/lang/VirtualThread");
    if (vt.containers == NULL || container == NULL || l->virtual_thread == NULL) {
        if (container != NULL) (*jni)->DeleteLocalRef(jni, container);
        release(jni);
        return "no virtual threads in this JVM (they need JDK 21 or later)";
    }
    jclass stream = (*jni)->FindClass(jni, "java/util/stream/Stream");
    jclass thread = (*jni)->FindClass(jni, "java/lang/Thread");
    int ok = !jni_failed(jni, stream) && !jni_failed(jni, thread);
    if (ok) {
        vt.root = (*jni)->GetStaticMethodID(jni, vt.containers, "root", "()Ljdk/internal/vm/ThreadContainer;");
        vt.container_threads = (*jni)->GetMethodID(jni, container, "threads", "()Ljava/util/stream/Stream;");
        vt.container_children = (*jni)->GetMethodID(jni, container, "children", "()Ljava/util/stream/Stream;");
        vt.stream_to_array = (*jni)->GetMethodID(jni, stream, "toArray", "()[Ljava/lang/Object;");
        l->carrier = (*jni)->GetFieldID(jni, l->virtual_thread, "carrierThread", "Ljava/lang/Thread;");
        l->state = (*jni)->GetFieldID(jni, l->virtual_thread, "state", "I");
        ok = !jni_cleared_exception(jni) && vt.root != NULL && vt.container_threads != NULL && vt.container_children != NULL
            && vt.stream_to_array != NULL && l->carrier != NULL && l->state != NULL;
    }
    if (ok) {
        l->pinned = static_int(jni, l->virtual_thread, "PINNED");
        l->timed_pinned = static_int(jni, l->virtual_thread, "TIMED_PINNED");
        l->parked = static_int(jni, l->virtual_thread, "PARKED");
        l->timed_parked = static_int(jni, l->virtual_thread, "TIMED_PARKED");
        l->running = static_int(jni, l->virtual_thread, "RUNNING");
        l->blocking = static_int(jni, l->virtual_thread, "BLOCKING");
        l->continuation = (*jni)->GetFieldID(jni, thread, "cont", "Ljdk/internal/vm/Continuation;");
        if (jni_cleared_exception(jni)) {
            l->continuation = NULL;
        }
    }
    (*jni)->DeleteLocalRef(jni, container);
    if (stream != NULL) (*jni)->DeleteLocalRef(jni, stream);
    if (thread != NULL) (*jni)->DeleteLocalRef(jni, thread);
    if (!ok) {
        release(jni);
        return "this JDK's thread containers are not laid out as expected: virtual threads cannot be listed";
    }
    vt.ready = 1;
    return NULL;
}

jobject virtual_threads_root(JNIEnv *jni) {
    jobject root = (*jni)->CallStaticObjectMethod(jni, vt.containers, vt.root);
    return jni_failed(jni, root) ? NULL : root;
}

/* The root container class's static field NAME of TYPE, or NULL when it has none. */
static jobject root_static(JNIEnv *jni, jclass root_class, const char *name, const char *type) {
    jfieldID field = (*jni)->GetStaticFieldID(jni, root_class, name, type);
    if (jni_failed(jni, field)) {
        return NULL;
    }
    jobject value = (*jni)->GetStaticObjectField(jni, root_class, field);
    return jni_failed(jni, value) ? NULL : value;
}

/* Looked up on the root's own class, which is initialized: one call instead of a walk of each. */
jlong virtual_threads_root_count(JNIEnv *jni, jobject root, int *tracked) {
    jclass root_class = (*jni)->GetObjectClass(jni, root);
    jobject set = root_static(jni, root_class, "VTHREADS", "Ljava/util/Set;");
    jobject adder = set == NULL ? root_static(jni, root_class, "VTHREAD_COUNT", "Ljava/util/concurrent/atomic/LongAdder;") : NULL;
    jobject counter = set != NULL ? set : adder;
    jlong count = -1;
    *tracked = set != NULL;
    if (counter != NULL) {
        jclass counter_class = (*jni)->GetObjectClass(jni, counter);
        jmethodID method = (*jni)->GetMethodID(jni, counter_class, set != NULL ? "size" : "sum", set != NULL ? "()I" : "()J");
        jint size = 0;
        if (jni_failed(jni, method)) {
            count = -1;
        } else if (set != NULL) {
            count = jni_call_int(jni, set, method, &size) == 0 ? size : -1;
        } else if (jni_call_long(jni, adder, method, &count) != 0) {
            count = -1;
        }
        (*jni)->DeleteLocalRef(jni, counter_class);
        (*jni)->DeleteLocalRef(jni, counter);
    }
    (*jni)->DeleteLocalRef(jni, root_class);
    return count;
}

/* The stream's elements as an Object[]: one call into Java rather than two per element through an
 * iterator (JNI calls that add up at 100,000 threads, docs/performance.md). NULL when it failed. */
static jobjectArray stream_elements(JNIEnv *jni, jobject container, jmethodID stream_of) {
    jobject stream = (*jni)->CallObjectMethod(jni, container, stream_of);
    if (jni_failed(jni, stream)) {
        return NULL;
    }
    jobjectArray elements = (*jni)->CallObjectMethod(jni, stream, vt.stream_to_array);
    (*jni)->DeleteLocalRef(jni, stream);
    return jni_failed(jni, elements) ? NULL : elements;
}

static int stopped(const virtual_thread_visitor *v) {
    return v->stop != NULL && v->stop(v->context);
}

static int walk(JNIEnv *jni, jobject container, int depth, const virtual_thread_visitor *v) {
    if (depth > CONTAINER_DEPTH_MAX || stopped(v)) {
        return 0;
    }
    int failed = 0;
    for (int pass = depth == 0 && v->skip_root_threads ? 1 : 0; pass < 2 && !failed; pass++) {
        if ((*jni)->PushLocalFrame(jni, v->kept_max + JNI_COMMAND_LOCALS) != 0) {
            jni_cleared_exception(jni);
            return -1;
        }
        jobjectArray elements = stream_elements(jni, container, pass == 0 ? vt.container_threads : vt.container_children);
        jsize n = elements == NULL ? 0 : (*jni)->GetArrayLength(jni, elements);
        failed = elements == NULL;
        for (jsize i = 0; i < n && !failed && !stopped(v); i++) {
            jobject item = (*jni)->GetObjectArrayElement(jni, elements, i);
            if (jni_failed(jni, item)) {
                continue;
            }
            if (pass == 1) {
                failed = walk(jni, item, depth + 1, v) != 0;
            } else if ((*jni)->IsInstanceOf(jni, item, vt.layout.virtual_thread) && v->visit(v->context, item)) {
                /* java.lang.VirtualThread only, whose fields a visitor may read: not Thread.isVirtual(),
                 * which is also true of the BoundVirtualThread a JVM without continuations uses */
                continue; /* kept until flush */
            }
            (*jni)->DeleteLocalRef(jni, item);
        }
        if (v->flush != NULL) {
            v->flush(v->context); /* the kept references belong to this local frame */
        }
        (*jni)->PopLocalFrame(jni, NULL);
    }
    return failed ? -1 : 0;
}

int virtual_threads_walk(JNIEnv *jni, jobject root, const virtual_thread_visitor *v) {
    return walk(jni, root, 0, v);
}
