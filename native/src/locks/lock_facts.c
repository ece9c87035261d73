#include "lock_facts.h"

#include <stdlib.h>

#include "agent.h"
#include "frames.h"
#include "jni_util.h"

/* StackTraceElement's accessors, looked up on first use. Method and field IDs of a boot class
 * stay valid for the JVM's life: nothing to release. */
static struct {
    int ready;
    jni_accessor class_name;
    jni_accessor method_name;
    jni_accessor line_number;
} element;

static int prepare(JNIEnv *jni) {
    if (element.ready) {
        return 0;
    }
    jclass klass = (*jni)->FindClass(jni, "java/lang/StackTraceElement");
    if (jni_failed(jni, klass)) {
        return -1;
    }
    element.ready = jni_accessor_find(jni, klass, "getClassName", "declaringClass", "Ljava/lang/String;", &element.class_name) == 0
        && jni_accessor_find(jni, klass, "getMethodName", "methodName", "Ljava/lang/String;", &element.method_name) == 0
        && jni_accessor_find(jni, klass, "getLineNumber", "lineNumber", "I", &element.line_number) == 0;
    (*jni)->DeleteLocalRef(jni, klass);
    return element.ready ? 0 : -1;
}

void lock_facts_describe_object(JNIEnv *jni, jobject object, lock_ref *ref) {
    jvmtiEnv *jvmti = the_agent.jvmti;
    char *signature = NULL;
    if ((*jvmti)->GetObjectHashCode(jvmti, object, &ref->hash) != JVMTI_ERROR_NONE) {
        ref->hash = 0;
    }
    jclass klass = (*jni)->GetObjectClass(jni, object);
    if (klass != NULL && (*jvmti)->GetClassSignature(jvmti, klass, &signature, NULL) == JVMTI_ERROR_NONE) {
        ref->class_name = java_class_name(signature);
        (*jvmti)->Deallocate(jvmti, (unsigned char *)signature);
    }
    if (klass != NULL) {
        (*jni)->DeleteLocalRef(jni, klass);
    }
}

void lock_facts_witness_frames(JNIEnv *jni, jobjectArray stack, lock_witness *w) {
    if (prepare(jni) != 0) {
        w->kind = WITNESS_NONE;
        return;
    }
    w->frames_seen = stack == NULL ? 0 : (*jni)->GetArrayLength(jni, stack);
    jobject top = w->frames_seen > 0 ? (*jni)->GetObjectArrayElement(jni, stack, 0) : NULL;
    if (jni_failed(jni, top)) {
        return;
    }
    w->top_class = jni_read_string(jni, top, &element.class_name);
    w->top_method = jni_read_string(jni, top, &element.method_name);
    w->top_line = jni_read_int(jni, top, &element.line_number);
    if (jni_cleared_exception(jni)) {
        w->top_line = -1;
    }
    (*jni)->DeleteLocalRef(jni, top);
}

void lock_facts_free(lock_facts *facts, size_t count) {
    for (size_t i = 0; i < count; i++) {
        for (jint k = 0; k < facts[i].owned_count; k++) {
            free(facts[i].owned[k].lock.class_name);
        }
        free(facts[i].owned);
        free(facts[i].waits_for.class_name);
        free(facts[i].seen.top_class);
        free(facts[i].seen.top_method);
    }
}

int lock_subject_needs_thread_info(const lock_subject *s, int want_owned) {
    return (want_owned && s->owned_depth >= 0)
        || (s->state & (JVMTI_THREAD_STATE_BLOCKED_ON_MONITOR_ENTER | JVMTI_THREAD_STATE_IN_OBJECT_WAIT)) != 0;
}
