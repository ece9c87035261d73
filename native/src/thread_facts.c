#include "thread_facts.h"

#include <string.h>

#include "agent.h"
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

static char *group_name(JNIEnv *jni, jthreadGroup group) {
    jvmtiThreadGroupInfo info;
    if (group == NULL || (*the_agent.jvmti)->GetThreadGroupInfo(the_agent.jvmti, group, &info) != JVMTI_ERROR_NONE) {
        return NULL;
    }
    if (info.parent != NULL) {
        (*jni)->DeleteLocalRef(jni, info.parent);
    }
    return info.name;
}

jvmtiError thread_facts_get(JNIEnv *jni, jthread thread, thread_facts *facts) {
    jvmtiEnv *jvmti = the_agent.jvmti;
    jvmtiThreadInfo info;
    memset(facts, 0, sizeof *facts);
    jvmtiError err = (*jvmti)->GetThreadInfo(jvmti, thread, &info);
    if (err != JVMTI_ERROR_NONE) {
        return err;
    }
    err = (*jvmti)->GetThreadState(jvmti, thread, &facts->state);
    if (err != JVMTI_ERROR_NONE) {
        agent_deallocate(info.name);
        if (info.thread_group != NULL) (*jni)->DeleteLocalRef(jni, info.thread_group);
        if (info.context_class_loader != NULL) (*jni)->DeleteLocalRef(jni, info.context_class_loader);
        return err;
    }
    facts->name = info.name;
    facts->priority = info.priority;
    facts->daemon = info.is_daemon;
    facts->group = group_name(jni, info.thread_group);
    if (info.thread_group != NULL) (*jni)->DeleteLocalRef(jni, info.thread_group);
    if (info.context_class_loader != NULL) (*jni)->DeleteLocalRef(jni, info.context_class_loader);
    facts->cpu_nanos = -1;
    if (the_agent.held.can_get_thread_cpu_time
            && (*jvmti)->GetThreadCpuTime(jvmti, thread, &facts->cpu_nanos) != JVMTI_ERROR_NONE) {
        facts->cpu_nanos = -1;
    }
    facts->id = thread_java_id(jni, thread);
    facts->is_agent = the_agent.server_thread != NULL && (*jni)->IsSameObject(jni, thread, the_agent.server_thread);
    return JVMTI_ERROR_NONE;
}

void thread_facts_free(thread_facts *facts) {
    agent_deallocate(facts->name);
    agent_deallocate(facts->group);
    facts->name = NULL;
    facts->group = NULL;
}

void thread_facts_write(json_writer *w, const thread_facts *facts, pid_t nid) {
    json_key(w, "id");
    json_int(w, facts->id);
    json_key(w, "name");
    json_mutf8(w, facts->name);
    json_key(w, "state");
    json_cstring(w, thread_state_name(facts->state));
    json_key(w, "flags");
    thread_state_write_flags(w, facts->state);
    json_key(w, "daemon");
    json_bool(w, facts->daemon);
    json_key(w, "priority");
    json_int(w, facts->priority);
    json_key(w, "group");
    json_mutf8(w, facts->group);
    json_key(w, "cpuNanos");
    json_int(w, facts->cpu_nanos);
    json_key(w, "nid");
    json_int(w, nid);
    if (facts->is_agent) {
        json_key(w, "agent");
        json_bool(w, 1);
    }
}
