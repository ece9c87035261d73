/* The `vm` command: what an incident report needs to know about the JVM itself: its system
 * properties (JVMTI GetSystemProperties), its input arguments, start time and uptime
 * (RuntimeMXBean), and the values and origins of the VM flags that matter most in an incident
 * (HotSpotDiagnosticMXBean.getVMOption). */
#include <string.h>

#include "agent.h"
#include "answer.h"
#include "jni_util.h"

/* Flags worth knowing in an incident; one missing on this JDK is left out. */
static const char *const incident_flags[] = {
    "MaxHeapSize", "InitialHeapSize", "MaxMetaspaceSize", "MaxDirectMemorySize", "ThreadStackSize",
    "UseSerialGC", "UseParallelGC", "UseG1GC", "UseZGC", "UseShenandoahGC", "ActiveProcessorCount",
    "HeapDumpOnOutOfMemoryError", "HeapDumpPath", "ExitOnOutOfMemoryError", "CrashOnOutOfMemoryError",
    "EnableDynamicAgentLoading", "DisableAttachMechanism", "UseContainerSupport", "MaxRAMPercentage",
    "CheckJNICalls", "G1HeapRegionSize",
};

static void write_java_string(json_writer *w, JNIEnv *jni, jstring value) {
    const char *chars = value == NULL ? NULL : (*jni)->GetStringUTFChars(jni, value, NULL);
    if (chars == NULL) {
        jni_cleared_exception(jni);
        json_null(w);
        return;
    }
    json_mutf8(w, chars);
    (*jni)->ReleaseStringUTFChars(jni, value, chars);
}

static void write_properties(command_ctx *ctx) {
    jvmtiEnv *jvmti = the_agent.jvmti;
    jint count = 0;
    char **names = NULL;
    json_begin_object_field(ctx->out, "properties");
    if ((*jvmti)->GetSystemProperties(jvmti, &count, &names) == JVMTI_ERROR_NONE) {
        for (jint i = 0; i < count; i++) {
            char *value = NULL;
            if ((*jvmti)->GetSystemProperty(jvmti, names[i], &value) == JVMTI_ERROR_NONE) {
                json_key_mutf8(ctx->out, names[i]);
                json_mutf8(ctx->out, value);
                agent_deallocate(value);
            }
            agent_deallocate(names[i]);
        }
        agent_deallocate(names);
    }
    json_end_object(ctx->out);
}

/* ManagementFactory.getRuntimeMXBean(): input arguments, start time, uptime. */
static void write_runtime_facts(command_ctx *ctx) {
    JNIEnv *jni = ctx->jni;
    json_writer *w = ctx->out;
    jclass factory = (*jni)->FindClass(jni, "java/lang/management/ManagementFactory");
    jclass runtime_class = (*jni)->FindClass(jni, "java/lang/management/RuntimeMXBean");
    jclass list_class = (*jni)->FindClass(jni, "java/util/List");
    if (jni_cleared_exception(jni) || factory == NULL || runtime_class == NULL || list_class == NULL) {
        return;
    }
    jmethodID get_runtime = (*jni)->GetStaticMethodID(jni, factory, "getRuntimeMXBean", "()Ljava/lang/management/RuntimeMXBean;");
    jmethodID get_arguments = (*jni)->GetMethodID(jni, runtime_class, "getInputArguments", "()Ljava/util/List;");
    jmethodID get_start = (*jni)->GetMethodID(jni, runtime_class, "getStartTime", "()J");
    jmethodID get_uptime = (*jni)->GetMethodID(jni, runtime_class, "getUptime", "()J");
    jmethodID to_array = (*jni)->GetMethodID(jni, list_class, "toArray", "()[Ljava/lang/Object;");
    jobject runtime = NULL;
    if (!jni_cleared_exception(jni) && get_runtime != NULL && get_arguments != NULL && get_start != NULL
            && get_uptime != NULL && to_array != NULL) {
        runtime = (*jni)->CallStaticObjectMethod(jni, factory, get_runtime);
    }
    if (!jni_cleared_exception(jni) && runtime != NULL) {
        jlong start;
        jlong uptime;
        json_field_int(w, "startTimeMillis", jni_call_long(jni, runtime, get_start, &start) == 0 ? start : -1);
        json_field_int(w, "uptimeMillis", jni_call_long(jni, runtime, get_uptime, &uptime) == 0 ? uptime : -1);
        jobject list = (*jni)->CallObjectMethod(jni, runtime, get_arguments);
        jobjectArray arguments = jni_cleared_exception(jni) || list == NULL ? NULL : (*jni)->CallObjectMethod(jni, list, to_array);
        json_begin_array_field(w, "inputArguments");
        if (!jni_cleared_exception(jni) && arguments != NULL) {
            jsize n = (*jni)->GetArrayLength(jni, arguments);
            for (jsize i = 0; i < n; i++) {
                jstring argument = (*jni)->GetObjectArrayElement(jni, arguments, i);
                write_java_string(w, jni, argument);
                if (argument != NULL) (*jni)->DeleteLocalRef(jni, argument);
            }
            (*jni)->DeleteLocalRef(jni, arguments);
        }
        json_end_array(w);
        if (list != NULL) (*jni)->DeleteLocalRef(jni, list);
        (*jni)->DeleteLocalRef(jni, runtime);
    }
    (*jni)->DeleteLocalRef(jni, factory);
    (*jni)->DeleteLocalRef(jni, runtime_class);
    (*jni)->DeleteLocalRef(jni, list_class);
}

/* The agent thread never returns to Java, so its local references are freed only with a frame. */
static void write_runtime(command_ctx *ctx) {
    JNIEnv *jni = ctx->jni;
    if ((*jni)->PushLocalFrame(jni, 32) != 0) {
        jni_cleared_exception(jni);
        return;
    }
    write_runtime_facts(ctx);
    (*jni)->PopLocalFrame(jni, NULL);
}

/* HotSpotDiagnosticMXBean.getVMOption(name) for each incident flag: {"value", "origin"}. */
static void write_flags(command_ctx *ctx) {
    JNIEnv *jni = ctx->jni;
    json_writer *w = ctx->out;
    json_begin_object_field(w, "flags");
    if ((*jni)->PushLocalFrame(jni, 32) != 0) {
        jni_cleared_exception(jni);
        json_end_object(w);
        return;
    }
    jclass factory = (*jni)->FindClass(jni, "java/lang/management/ManagementFactory");
    jclass bean_class = (*jni)->FindClass(jni, "com/sun/management/HotSpotDiagnosticMXBean");
    jclass option_class = (*jni)->FindClass(jni, "com/sun/management/VMOption");
    jclass object_class = (*jni)->FindClass(jni, "java/lang/Object");
    jobject bean = NULL;
    jmethodID get_option = NULL, get_value = NULL, get_origin = NULL, to_string = NULL;
    if (!jni_cleared_exception(jni) && factory != NULL && bean_class != NULL && option_class != NULL && object_class != NULL) {
        jmethodID get_bean = (*jni)->GetStaticMethodID(jni, factory, "getPlatformMXBean",
                                                        "(Ljava/lang/Class;)Ljava/lang/management/PlatformManagedObject;");
        get_option = (*jni)->GetMethodID(jni, bean_class, "getVMOption", "(Ljava/lang/String;)Lcom/sun/management/VMOption;");
        get_value = (*jni)->GetMethodID(jni, option_class, "getValue", "()Ljava/lang/String;");
        get_origin = (*jni)->GetMethodID(jni, option_class, "getOrigin", "()Lcom/sun/management/VMOption$Origin;");
        to_string = (*jni)->GetMethodID(jni, object_class, "toString", "()Ljava/lang/String;");
        if (!jni_cleared_exception(jni) && get_bean != NULL && get_option != NULL && get_value != NULL && get_origin != NULL && to_string != NULL) {
            bean = (*jni)->CallStaticObjectMethod(jni, factory, get_bean, bean_class);
        }
    }
    jni_cleared_exception(jni);
    for (size_t i = 0; bean != NULL && i < sizeof incident_flags / sizeof incident_flags[0]; i++) {
        jstring name = (*jni)->NewStringUTF(jni, incident_flags[i]);
        jobject option = name == NULL ? NULL : (*jni)->CallObjectMethod(jni, bean, get_option, name);
        if (!jni_cleared_exception(jni) && option != NULL) {
            jstring value = (*jni)->CallObjectMethod(jni, option, get_value);
            jobject origin = jni_cleared_exception(jni) ? NULL : (*jni)->CallObjectMethod(jni, option, get_origin);
            jstring origin_text = jni_cleared_exception(jni) || origin == NULL ? NULL : (*jni)->CallObjectMethod(jni, origin, to_string);
            jni_cleared_exception(jni);
            json_begin_object_field(w, incident_flags[i]);
            json_key(w, "value");
            write_java_string(w, jni, value);
            json_key(w, "origin");
            write_java_string(w, jni, origin_text);
            json_end_object(w);
            if (value != NULL) (*jni)->DeleteLocalRef(jni, value);
            if (origin != NULL) (*jni)->DeleteLocalRef(jni, origin);
            if (origin_text != NULL) (*jni)->DeleteLocalRef(jni, origin_text);
            (*jni)->DeleteLocalRef(jni, option);
        }
        if (name != NULL) (*jni)->DeleteLocalRef(jni, name);
    }
    jni_cleared_exception(jni);
    (*jni)->PopLocalFrame(jni, NULL);
    json_end_object(w);
}

void cmd_vm(command_ctx *ctx) {
    command_result(ctx);
    json_begin_object(ctx->out);
    write_properties(ctx);
    write_runtime(ctx);
    write_flags(ctx);
    json_end_object(ctx->out);
}
