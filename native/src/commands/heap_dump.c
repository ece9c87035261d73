/* The `heap.dump` command: an .hprof of the heap written by the JVM's own heap dumper, what
 * `jcmd PID GC.heap_dump` runs, asked of the JVM's attach listener from inside (diagnostic_command.h),
 * as `heap` asks for its histogram: the one way in that takes GC.heap_dump's options (-all,
 * -gz=LEVEL). HotSpot does not offer GC.heap_dump to the DiagnosticCommand MBean (17 and 25 list no
 * gcHeapDump), and HotSpotDiagnosticMXBean.dumpHeap has no compression and wants a .hprof name.
 * The JVM writes the file, as its own user; the agent writes nothing.
 * Before asking, the agent checks what the JVM will open: the directory, by an absolute path as
 * this JVM sees it (a container's own), reached through no link and through nothing another user
 * could change (trusted_directory.h); the file not there (HotSpot creates it O_EXCL, but a refusal
 * before the safepoint is kinder); and room on its file system for the heap's used bytes. The
 * pause is the safepoints the JVM counted meanwhile, as `heap` measures its histogram's. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "answer.h"
#include "diagnostic_command.h"
#include "events.h"
#include "jni_util.h"
#include "safepoint_totals.h"
#include "trusted_directory.h"

#define GZ_LEVEL_MAX 9
#define COMMAND_LINE_MAX 1024 /* what the attach listener takes as jcmd's argument */
#define DUMP_MAX_ANSWER (64u << 10)
#define DUMP_TIMEOUT_SECONDS 600

/* The heap's used bytes as the JVM's MemoryMXBean counts them, or -1. */
static jlong heap_used_bytes(JNIEnv *jni) {
    jclass factory = (*jni)->FindClass(jni, "java/lang/management/ManagementFactory");
    jmethodID get_bean = jni_failed(jni, factory) ? NULL
        : (*jni)->GetStaticMethodID(jni, factory, "getMemoryMXBean", "()Ljava/lang/management/MemoryMXBean;");
    jobject bean = jni_failed(jni, get_bean) ? NULL : (*jni)->CallStaticObjectMethod(jni, factory, get_bean);
    jclass bean_class = jni_failed(jni, bean) ? NULL : (*jni)->GetObjectClass(jni, bean);
    jmethodID get_usage = bean_class == NULL ? NULL
        : (*jni)->GetMethodID(jni, bean_class, "getHeapMemoryUsage", "()Ljava/lang/management/MemoryUsage;");
    jobject usage = jni_failed(jni, get_usage) ? NULL : (*jni)->CallObjectMethod(jni, bean, get_usage);
    jclass usage_class = jni_failed(jni, usage) ? NULL : (*jni)->GetObjectClass(jni, usage);
    jmethodID get_used = usage_class == NULL ? NULL : (*jni)->GetMethodID(jni, usage_class, "getUsed", "()J");
    jlong used = -1;
    if (jni_failed(jni, get_used) || jni_call_long(jni, usage, get_used, &used) != 0) {
        used = -1;
    }
    if (usage_class != NULL) (*jni)->DeleteLocalRef(jni, usage_class);
    if (usage != NULL) (*jni)->DeleteLocalRef(jni, usage);
    if (bean_class != NULL) (*jni)->DeleteLocalRef(jni, bean_class);
    if (bean != NULL) (*jni)->DeleteLocalRef(jni, bean);
    if (factory != NULL) (*jni)->DeleteLocalRef(jni, factory);
    return used;
}

/* A name GC.heap_dump's argument parser takes as it is inside double quotes, and that is one
 * plain file name: no slash, no quote, no control character, not . or .. */
static int plain_name(const char *name) {
    if (name[0] == '\0' || strcmp(name, ".") == 0 || strcmp(name, "..") == 0) {
        return 0;
    }
    for (const unsigned char *c = (const unsigned char *)name; *c != '\0'; c++) {
        if (*c < 0x20 || *c == 0x7f || *c == '/' || *c == '"' || *c == '\'' || *c == '\\') {
            return 0;
        }
    }
    return 1;
}

/* The same for the directory's path, which may hold slashes. */
static int plain_path(const char *path) {
    for (const unsigned char *c = (const unsigned char *)path; *c != '\0'; c++) {
        if (*c < 0x20 || *c == 0x7f || *c == '"' || *c == '\'' || *c == '\\') {
            return 0;
        }
    }
    return 1;
}

/* The JVM's text, which ends its lines, as one line. */
static void one_line(char *text) {
    size_t end = strlen(text);
    while (end > 0 && (text[end - 1] == '\n' || text[end - 1] == ' ')) {
        text[--end] = '\0';
    }
    for (char *c = text; *c != '\0'; c++) {
        if (*c == '\n') {
            *c = ' ';
        }
    }
}

/* Bytes this JVM's user may still write on dir's file system (root may use the reserved blocks), or -1. */
static int64_t free_bytes(int dir) {
    struct statvfs fs;
    if (fstatvfs(dir, &fs) != 0) {
        return -1;
    }
    return (int64_t)(geteuid() == 0 ? fs.f_bfree : fs.f_bavail) * (int64_t)fs.f_frsize;
}

static void write_answer(command_ctx *ctx, const char *path, int live, int64_t gz_level, const char *command_line, jlong used,
                         int64_t room, const struct stat *file, int64_t started, int64_t elapsed, int counted,
                         const safepoint_totals *before, const safepoint_totals *after, const char *output) {
    command_result(ctx);
    json_writer *w = ctx->out;
    json_begin_object(w);
    json_field_cstring(w, "path", path);
    json_field_bool(w, "live", live);
    json_field_int(w, "gzLevel", gz_level);
    json_field_cstring(w, "command", command_line);
    json_field_int(w, "heapUsedBytes", used);
    json_field_int(w, "freeBytes", room);
    json_field_int(w, "fileBytes", file->st_size);
    json_field_int(w, "fileUid", file->st_uid);
    json_field_int(w, "fileMode", file->st_mode & 07777);
    json_field_int(w, "startedNanos", started);
    json_field_int(w, "elapsedNanos", elapsed);
    if (counted) {
        safepoint_totals_write_within(w, before, after, elapsed);
    }
    json_field_cstring(w, "output", output);
    json_end_object(w);
}

void cmd_heap_dump(command_ctx *ctx) {
    const char *directory = request_string(ctx->req, "directory");
    const char *name = request_string(ctx->req, "file");
    int live = request_bool(ctx->req, "live", 0);
    int64_t gz_level = request_int(ctx->req, "gzLevel", 0);
    if (directory == NULL || name == NULL || gz_level < 0 || gz_level > GZ_LEVEL_MAX) {
        command_fail(ctx, "bad_request", "heap.dump takes a directory, a file name, live and gzLevel from 0 (none) to 9");
        return;
    }
    if (!plain_name(name) || !plain_path(directory)) {
        command_fail(ctx, "bad_path", "the file must be a plain name (no /, quote, backslash or control character) in a directory named without them");
        return;
    }
    char error[PATH_MAX + 512] = "";
    int dir = trusted_directory_open(directory, error, sizeof error);
    if (dir < 0) {
        command_fail(ctx, "untrusted_directory", error);
        return;
    }
    char path[PATH_MAX];
    struct stat file;
    int64_t room = free_bytes(dir);
    jlong used = heap_used_bytes(ctx->jni);
    int named = snprintf(path, sizeof path, "%s%s%s", directory, directory[strlen(directory) - 1] == '/' ? "" : "/", name);
    int exists = fstatat(dir, name, &file, AT_SYMLINK_NOFOLLOW) == 0 || errno != ENOENT;
    close(dir);
    if (named < 0 || (size_t)named >= sizeof path) {
        command_fail(ctx, "bad_path", "the file's path is too long");
        return;
    }
    if (exists) {
        snprintf(error, sizeof error, "%s exists (or cannot be looked at): a heap dump never replaces a file", path);
        command_fail(ctx, "file_exists", error);
        return;
    }
    if (room < 0 || used < 0) {
        command_fail(ctx, "heap_dump_failed", room < 0 ? "cannot tell the free room of the directory's file system (fstatvfs)"
                                                       : "cannot read the heap's used size (MemoryMXBean)");
        return;
    }
    if (room < used) {
        snprintf(error, sizeof error, "%s: %lld bytes free on its file system, less than the heap's %lld used bytes",
                 directory, (long long)room, (long long)used);
        command_fail(ctx, "no_room", error);
        return;
    }
    char command_line[COMMAND_LINE_MAX];
    char gz[16] = "";
    if (gz_level > 0) {
        snprintf(gz, sizeof gz, " -gz=%d", (int)gz_level);
    }
    int length = snprintf(command_line, sizeof command_line, "GC.heap_dump%s%s \"%s\"", live ? "" : " -all", gz, path);
    if (length < 0 || (size_t)length >= sizeof command_line) {
        command_fail(ctx, "bad_path", "the file's path is too long for the JVM's attach listener (about 1000 bytes)");
        return;
    }
    safepoint_totals before, after;
    int counted = safepoint_totals_read_settled(ctx->jni, &before) == 0;
    int64_t started = events_now_nanos();
    size_t output_length = 0;
    char *output = diagnostic_command_run(command_line, DUMP_MAX_ANSWER, DUMP_TIMEOUT_SECONDS, error, sizeof error, &output_length);
    int64_t elapsed = events_now_nanos() - started;
    counted = counted && safepoint_totals_read(ctx->jni, &after) == 0;
    if (output == NULL) {
        one_line(error);
        command_fail(ctx, "heap_dump_failed", error);
        return;
    }
    if (strstr(output, "Heap dump file created") == NULL || lstat(path, &file) != 0) {
        snprintf(error, sizeof error, "the JVM did not write %s: %.300s", path, output);
        one_line(error);
        free(output);
        command_fail(ctx, "heap_dump_failed", error);
        return;
    }
    write_answer(ctx, path, live, gz_level, command_line, used, room, &file, started, elapsed, counted, &before, &after, output);
    free(output);
}
