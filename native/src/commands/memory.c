/* The `memory` command: where the process's memory is, as the JVM itself counts it. The platform
 * MXBeans through JNI (MemoryMXBean and each MemoryPoolMXBean: used, committed, max; each
 * BufferPoolMXBean: count, bytes; each GarbageCollectorMXBean: count, time; ThreadMXBean: live
 * threads), the kernel's count of what is resident (/proc/self/smaps_rollup and status, in bytes), and the
 * JVM's native memory tracking summary (VM.native_memory summary, diagnostic_command.h), whose
 * text says when tracking is off. Each getter's exception is cleared; a value the JVM would not
 * give is left out. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "answer.h"
#include "diagnostic_command.h"
#include "jni_util.h"

#define NMT_MAX_ANSWER (1u << 20)
#define NMT_TIMEOUT_SECONDS 10
#define BEAN_LOCALS 16

typedef struct {
    JNIEnv *jni;
    json_writer *out;
    jclass factory;
    jmethodID get_bean;    /* ManagementFactory.getPlatformMXBean(Class) */
    jmethodID get_beans;   /* ManagementFactory.getPlatformMXBeans(Class) */
    jmethodID to_array;    /* List.toArray() */
    jmethodID get_used, get_committed, get_max, get_init; /* MemoryUsage */
} beans;

static jmethodID method(JNIEnv *jni, const char *class_name, const char *name, const char *signature) {
    jclass type = (*jni)->FindClass(jni, class_name);
    if (jni_failed(jni, type)) {
        return NULL;
    }
    jmethodID id = (*jni)->GetMethodID(jni, type, name, signature);
    jni_cleared_exception(jni);
    (*jni)->DeleteLocalRef(jni, type);
    return id;
}

static void write_long(beans *b, const char *key, jobject target, jmethodID getter) {
    jlong value;
    if (getter != NULL && jni_call_long(b->jni, target, getter, &value) == 0) {
        json_field_int(b->out, key, value);
    }
}

static void write_string(beans *b, const char *key, jobject target, jmethodID getter) {
    char *value = getter == NULL ? NULL : jni_call_string(b->jni, target, getter);
    if (value != NULL) {
        json_field_mutf8(b->out, key, value);
        free(value);
    }
}

/* A MemoryUsage as {"init","used","committed","max"}; max -1 when undefined, as the JVM says. */
static void write_usage(beans *b, const char *key, jobject holder, jmethodID get_usage) {
    JNIEnv *jni = b->jni;
    jobject usage = get_usage == NULL ? NULL : (*jni)->CallObjectMethod(jni, holder, get_usage);
    if (jni_failed(jni, usage)) {
        return;
    }
    json_begin_object_field(b->out, key);
    write_long(b, "init", usage, b->get_init);
    write_long(b, "used", usage, b->get_used);
    write_long(b, "committed", usage, b->get_committed);
    write_long(b, "max", usage, b->get_max);
    json_end_object(b->out);
    (*jni)->DeleteLocalRef(jni, usage);
}

static jobject platform_bean(beans *b, const char *interface_name) {
    JNIEnv *jni = b->jni;
    jclass type = (*jni)->FindClass(jni, interface_name);
    if (jni_failed(jni, type)) {
        return NULL;
    }
    jobject bean = (*jni)->CallStaticObjectMethod(jni, b->factory, b->get_bean, type);
    jni_cleared_exception(jni);
    (*jni)->DeleteLocalRef(jni, type);
    return bean;
}

/* Writes key: [each platform MXBean of the interface, by write_one], in a local frame per bean. */
static void write_bean_list(beans *b, const char *key, const char *interface_name,
                            void (*write_one)(beans *b, jobject bean)) {
    JNIEnv *jni = b->jni;
    jclass type = (*jni)->FindClass(jni, interface_name);
    jobject list = jni_failed(jni, type) ? NULL : (*jni)->CallStaticObjectMethod(jni, b->factory, b->get_beans, type);
    jobjectArray array = jni_failed(jni, list) ? NULL : (*jni)->CallObjectMethod(jni, list, b->to_array);
    if (jni_failed(jni, array)) {
        return;
    }
    json_begin_array_field(b->out, key);
    jsize count = (*jni)->GetArrayLength(jni, array);
    for (jsize i = 0; i < count; i++) {
        if ((*jni)->PushLocalFrame(jni, BEAN_LOCALS) != 0) {
            jni_cleared_exception(jni);
            break;
        }
        jobject bean = (*jni)->GetObjectArrayElement(jni, array, i);
        if (!jni_failed(jni, bean)) {
            json_begin_object(b->out);
            write_one(b, bean);
            json_end_object(b->out);
        }
        (*jni)->PopLocalFrame(jni, NULL);
    }
    json_end_array(b->out);
}

static void write_pool(beans *b, jobject pool) {
    const char *pool_class = "java/lang/management/MemoryPoolMXBean";
    write_string(b, "name", pool, method(b->jni, pool_class, "getName", "()Ljava/lang/String;"));
    jmethodID get_type = method(b->jni, pool_class, "getType", "()Ljava/lang/management/MemoryType;");
    jobject type = get_type == NULL ? NULL : (*b->jni)->CallObjectMethod(b->jni, pool, get_type);
    if (!jni_failed(b->jni, type)) {
        write_string(b, "type", type, method(b->jni, "java/lang/Enum", "name", "()Ljava/lang/String;"));
    }
    write_usage(b, "usage", pool, method(b->jni, pool_class, "getUsage", "()Ljava/lang/management/MemoryUsage;"));
}

static void write_buffer_pool(beans *b, jobject pool) {
    const char *pool_class = "java/lang/management/BufferPoolMXBean";
    write_string(b, "name", pool, method(b->jni, pool_class, "getName", "()Ljava/lang/String;"));
    write_long(b, "count", pool, method(b->jni, pool_class, "getCount", "()J"));
    write_long(b, "used", pool, method(b->jni, pool_class, "getMemoryUsed", "()J"));
    write_long(b, "capacity", pool, method(b->jni, pool_class, "getTotalCapacity", "()J"));
}

static void write_collector(beans *b, jobject collector) {
    const char *collector_class = "java/lang/management/GarbageCollectorMXBean";
    write_string(b, "name", collector, method(b->jni, collector_class, "getName", "()Ljava/lang/String;"));
    write_long(b, "count", collector, method(b->jni, collector_class, "getCollectionCount", "()J"));
    write_long(b, "timeMillis", collector, method(b->jni, collector_class, "getCollectionTime", "()J"));
}

static void write_mxbeans(beans *b) {
    JNIEnv *jni = b->jni;
    jobject memory = platform_bean(b, "java/lang/management/MemoryMXBean");
    if (memory != NULL) {
        const char *usage = "()Ljava/lang/management/MemoryUsage;";
        write_usage(b, "heap", memory, method(jni, "java/lang/management/MemoryMXBean", "getHeapMemoryUsage", usage));
        write_usage(b, "nonHeap", memory, method(jni, "java/lang/management/MemoryMXBean", "getNonHeapMemoryUsage", usage));
        (*jni)->DeleteLocalRef(jni, memory);
    }
    write_bean_list(b, "pools", "java/lang/management/MemoryPoolMXBean", write_pool);
    write_bean_list(b, "bufferPools", "java/lang/management/BufferPoolMXBean", write_buffer_pool);
    write_bean_list(b, "collectors", "java/lang/management/GarbageCollectorMXBean", write_collector);
    jobject threads = platform_bean(b, "java/lang/management/ThreadMXBean");
    if (threads != NULL) {
        jint count;
        jmethodID get_count = method(jni, "java/lang/management/ThreadMXBean", "getThreadCount", "()I");
        if (get_count != NULL && jni_call_int(jni, threads, get_count, &count) == 0) {
            json_field_int(b->out, "threads", count);
        }
        (*jni)->DeleteLocalRef(jni, threads);
    }
}

/* Each "Name:  N kB" line of a /proc file whose name starts with prefix, as "Name": bytes. */
static int write_kilobyte_lines(json_writer *w, const char *path, const char *prefix) {
    FILE *file = fopen(path, "re");
    if (file == NULL) {
        return -1;
    }
    char line[256];
    while (fgets(line, sizeof line, file) != NULL) {
        char name[64];
        long long kilobytes;
        if (strncmp(line, prefix, strlen(prefix)) == 0 && sscanf(line, "%63[A-Za-z_]: %lld kB", name, &kilobytes) == 2) {
            json_field_int(w, name, kilobytes * 1024);
        }
    }
    fclose(file);
    return 0;
}

/* smaps_rollup's totals (Rss, Anonymous, Pss_*, Shared_*, Swap, ...) and status's split of the
 * resident set (RssAnon, RssFile, RssShmem), in bytes. */
static void write_resident(json_writer *w) {
    json_begin_object_field(w, "resident");
    int rollup = write_kilobyte_lines(w, "/proc/self/smaps_rollup", "");
    (void)write_kilobyte_lines(w, "/proc/self/status", "Rss");
    json_end_object(w);
    if (rollup != 0) {
        json_field_cstring(w, "residentError", "/proc/self/smaps_rollup cannot be read (Linux 4.14 or later has it)");
    }
}

static void write_native_memory(json_writer *w) {
    char error[256] = "";
    size_t length = 0;
    char *text = diagnostic_command_run("VM.native_memory summary", NMT_MAX_ANSWER, NMT_TIMEOUT_SECONDS, error, sizeof error, &length);
    json_key(w, text == NULL ? "nativeMemoryError" : "nativeMemory");
    if (text == NULL) {
        json_cstring(w, error);
        return;
    }
    json_string(w, text, length);
    free(text);
}

void cmd_memory(command_ctx *ctx) {
    JNIEnv *jni = ctx->jni;
    beans b = { jni, ctx->out, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL };
    b.factory = (*jni)->FindClass(jni, "java/lang/management/ManagementFactory");
    if (!jni_failed(jni, b.factory)) {
        b.get_bean = (*jni)->GetStaticMethodID(jni, b.factory, "getPlatformMXBean",
                                               "(Ljava/lang/Class;)Ljava/lang/management/PlatformManagedObject;");
        b.get_beans = b.get_bean == NULL ? NULL : (*jni)->GetStaticMethodID(jni, b.factory, "getPlatformMXBeans", "(Ljava/lang/Class;)Ljava/util/List;");
        jni_cleared_exception(jni);
    }
    b.to_array = method(jni, "java/util/List", "toArray", "()[Ljava/lang/Object;");
    const char *usage_class = "java/lang/management/MemoryUsage";
    b.get_init = method(jni, usage_class, "getInit", "()J");
    b.get_used = method(jni, usage_class, "getUsed", "()J");
    b.get_committed = method(jni, usage_class, "getCommitted", "()J");
    b.get_max = method(jni, usage_class, "getMax", "()J");
    if (b.get_bean == NULL || b.get_beans == NULL || b.to_array == NULL || b.get_max == NULL) {
        command_fail(ctx, "jni_error", "the JVM's java.lang.management classes cannot be used");
        return;
    }
    command_result(ctx);
    json_begin_object(ctx->out);
    write_mxbeans(&b);
    write_resident(ctx->out);
    write_native_memory(ctx->out);
    json_end_object(ctx->out);
}
