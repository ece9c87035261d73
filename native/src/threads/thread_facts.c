#include "thread_facts.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "jni_util.h"
#include "os_priority.h"
#include "own_threads.h"
#include "thread_state.h"

/* Read from the field, not through getId(): a Thread subclass may override getId() with code
 * that must not run on the agent's thread. */
jlong thread_java_id(JNIEnv *jni, jthread thread) {
    static jfieldID tid;
    if (tid == NULL) {
        jclass thread_class = (*jni)->FindClass(jni, "java/lang/Thread");
        if (thread_class == NULL) {
            (*jni)->ExceptionClear(jni);
            return -1;
        }
        tid = (*jni)->GetFieldID(jni, thread_class, "tid", "J");
        (*jni)->DeleteLocalRef(jni, thread_class);
        if (tid == NULL) {
            (*jni)->ExceptionClear(jni);
            return -1;
        }
    }
    return (*jni)->GetLongField(jni, thread, tid);
}

/* Name, priority, daemon and group come from final getters of Thread and ThreadGroup (no code
 * of a subclass runs on the agent's thread), not from GetThreadInfo: from JDK 21 on, each JVMTI
 * call about a platform thread first walks the list of all threads, so that no virtual thread
 * mounts meanwhile, so GetThreadInfo costs more the more threads there are (docs/performance.md). */
static struct {
    jmethodID get_name;
    jmethodID get_priority;
    jmethodID is_daemon;
    jmethodID get_group;
    jmethodID group_name;
} getters;

static int find_getters(JNIEnv *jni) {
    if (getters.group_name != NULL) {
        return 0;
    }
    jclass thread_class = (*jni)->FindClass(jni, "java/lang/Thread");
    jclass group_class = (*jni)->FindClass(jni, "java/lang/ThreadGroup");
    if (thread_class != NULL && group_class != NULL) {
        getters.get_name = (*jni)->GetMethodID(jni, thread_class, "getName", "()Ljava/lang/String;");
        getters.get_priority = (*jni)->GetMethodID(jni, thread_class, "getPriority", "()I");
        getters.is_daemon = (*jni)->GetMethodID(jni, thread_class, "isDaemon", "()Z");
        getters.get_group = (*jni)->GetMethodID(jni, thread_class, "getThreadGroup", "()Ljava/lang/ThreadGroup;");
        jmethodID group_name = (*jni)->GetMethodID(jni, group_class, "getName", "()Ljava/lang/String;");
        /* set last: its presence says all are there */
        if (getters.get_name != NULL && getters.get_priority != NULL && getters.is_daemon != NULL && getters.get_group != NULL) {
            getters.group_name = group_name;
        }
    }
    jni_cleared_exception(jni);
    if (thread_class != NULL) (*jni)->DeleteLocalRef(jni, thread_class);
    if (group_class != NULL) (*jni)->DeleteLocalRef(jni, group_class);
    return getters.group_name != NULL ? 0 : -1;
}

/* The fields those getters return, read in their place where all were found: a field read costs a
 * fraction of a call into Java, for each thread of every dump. From JDK 19 on, priority, daemon
 * and group are in Thread.holder, which a virtual thread has none of (its getters answer then). */
static struct {
    int looked_up;
    int found;
    jfieldID name;       /* Thread.name */
    jfieldID holder;     /* Thread.holder; NULL before JDK 19, where the three below are Thread's */
    jfieldID priority;
    jfieldID daemon;
    jfieldID group;
    jfieldID group_name; /* ThreadGroup.name */
} fields;

static void find_fields(JNIEnv *jni) {
    fields.looked_up = 1;
    jclass thread_class = (*jni)->FindClass(jni, "java/lang/Thread");
    jclass group_class = (*jni)->FindClass(jni, "java/lang/ThreadGroup");
    jclass holder_class = (*jni)->FindClass(jni, "java/lang/Thread$FieldHolder");
    jni_cleared_exception(jni); /* no FieldHolder before JDK 19 */
    if (thread_class != NULL && group_class != NULL) {
        fields.name = (*jni)->GetFieldID(jni, thread_class, "name", "Ljava/lang/String;");
        jni_cleared_exception(jni);
        if (holder_class != NULL) {
            fields.holder = (*jni)->GetFieldID(jni, thread_class, "holder", "Ljava/lang/Thread$FieldHolder;");
            jni_cleared_exception(jni);
        }
        jclass owner = fields.holder != NULL ? holder_class : thread_class;
        fields.priority = (*jni)->GetFieldID(jni, owner, "priority", "I");
        jni_cleared_exception(jni);
        fields.daemon = (*jni)->GetFieldID(jni, owner, "daemon", "Z");
        jni_cleared_exception(jni);
        fields.group = (*jni)->GetFieldID(jni, owner, "group", "Ljava/lang/ThreadGroup;");
        jni_cleared_exception(jni);
        fields.group_name = (*jni)->GetFieldID(jni, group_class, "name", "Ljava/lang/String;");
        jni_cleared_exception(jni);
        fields.found = fields.name != NULL && fields.priority != NULL && fields.daemon != NULL && fields.group != NULL
            && fields.group_name != NULL && (holder_class == NULL || fields.holder != NULL);
    }
    if (thread_class != NULL) (*jni)->DeleteLocalRef(jni, thread_class);
    if (group_class != NULL) (*jni)->DeleteLocalRef(jni, group_class);
    if (holder_class != NULL) (*jni)->DeleteLocalRef(jni, holder_class);
}

/* The facts from the fields; -1 when the thread has no holder (a virtual thread). */
static int read_fields(JNIEnv *jni, jthread thread, thread_facts *facts) {
    jobject holder = fields.holder != NULL ? (*jni)->GetObjectField(jni, thread, fields.holder) : thread;
    if (holder == NULL) {
        return -1;
    }
    facts->priority = (*jni)->GetIntField(jni, holder, fields.priority);
    facts->daemon = (*jni)->GetBooleanField(jni, holder, fields.daemon);
    jobject group = (*jni)->GetObjectField(jni, holder, fields.group);
    if (holder != thread) {
        (*jni)->DeleteLocalRef(jni, holder);
    }
    facts->name = jni_string_field(jni, thread, fields.name);
    facts->group = jni_string_field(jni, group, fields.group_name);
    if (group != NULL) (*jni)->DeleteLocalRef(jni, group);
    return 0;
}

static int call_getters(JNIEnv *jni, jthread thread, thread_facts *facts) {
    if (find_getters(jni) != 0 || jni_call_int(jni, thread, getters.get_priority, &facts->priority) != 0
            || jni_call_boolean(jni, thread, getters.is_daemon, &facts->daemon) != 0) {
        return -1;
    }
    facts->name = jni_call_string(jni, thread, getters.get_name);
    jobject group = (*jni)->CallObjectMethod(jni, thread, getters.get_group);
    if (jni_failed(jni, group)) {
        group = NULL;
    }
    facts->group = jni_call_string(jni, group, getters.group_name);
    if (group != NULL) (*jni)->DeleteLocalRef(jni, group);
    return 0;
}

jvmtiError thread_facts_get(JNIEnv *jni, jthread thread, thread_facts *facts) {
    memset(facts, 0, sizeof *facts);
    if (!fields.looked_up) {
        find_fields(jni);
    }
    if ((!fields.found || read_fields(jni, thread, facts) != 0) && call_getters(jni, thread, facts) != 0) {
        return JVMTI_ERROR_INTERNAL;
    }
    facts->cpu_nanos = -1;
    facts->id = thread_java_id(jni, thread);
    facts->is_agent = own_threads_contains(jni, thread);
    return JVMTI_ERROR_NONE;
}

void thread_facts_read_cpu(jthread thread, thread_facts *facts) {
    jvmtiEnv *jvmti = the_agent.jvmti;
    if (!the_agent.held.can_get_thread_cpu_time || (*jvmti)->GetThreadCpuTime(jvmti, thread, &facts->cpu_nanos) != JVMTI_ERROR_NONE) {
        facts->cpu_nanos = -1;
    }
}

void thread_facts_free(thread_facts *facts) {
    free(facts->name);
    free(facts->group);
    facts->name = NULL;
    facts->group = NULL;
}

void thread_facts_write_native(json_writer *w, const native_thread *native) {
    json_field_int(w, "nid", native->nid);
    if (native->os_state != NULL) {
        json_field_cstring(w, "osState", native->os_state);
    }
    int os_prio;
    if (native->has_task && os_priority(native->task.nice, &os_prio) == 0) {
        json_field_int(w, "osPriority", os_prio);
    }
    if (native->has_task) {
        json_field_int(w, "started", native->task.started_millis);
    }
    if (native->address != 0) {
        char tid[2 + 16 + 1];
        snprintf(tid, sizeof tid, "0x%016" PRIx64, native->address);
        json_field_cstring(w, "tid", tid);
    }
}

void thread_facts_write(json_writer *w, const thread_facts *facts, const native_thread *native) {
    json_field_int(w, "id", facts->id);
    json_field_mutf8(w, "name", facts->name);
    json_field_cstring(w, "state", thread_state_name(facts->state));
    json_key(w, "flags");
    thread_state_write_flags(w, facts->state);
    json_field_bool(w, "daemon", facts->daemon);
    json_field_int(w, "priority", facts->priority);
    json_field_mutf8(w, "group", facts->group);
    json_field_int(w, "cpuNanos", facts->cpu_nanos);
    static const native_thread none;
    thread_facts_write_native(w, native == NULL ? &none : native);
    if (facts->is_agent) {
        json_field_bool(w, "agent", 1);
    }
}
