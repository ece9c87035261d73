#include "dispatch.h"

#include <stdio.h>
#include <string.h>

#include "agent.h"
#include "commands.h"
#include "events.h"
#include "jni_util.h"

typedef struct {
    const char *name;
    void (*run)(command_ctx *ctx);
} command;

static const command commands[] = {
    { "hello", cmd_hello },
    { "threads", cmd_threads },
    { "stacks", cmd_stacks },
    { "vm", cmd_vm },
    { "vthreads", cmd_vthreads },
    { "blockers", cmd_blockers },
    { "synchronizers", cmd_synchronizers },
    { "detach", cmd_detach },
    { "alloc.start", cmd_alloc_start },
    { "alloc.stop", cmd_alloc_stop },
    { "contention.start", cmd_contention_start },
    { "contention.stop", cmd_contention_stop },
    { "jit", cmd_jit },
};

static request parsed; /* one request at a time, on the agent thread */

static void begin_answer(json_writer *out, int64_t id) {
    json_begin_object(out);
    json_key(out, "v");
    json_int(out, PROTOCOL_VERSION);
    json_key(out, "id");
    json_int(out, id);
}

static void write_error(json_writer *out, const char *code, const char *message) {
    json_key(out, "ok");
    json_bool(out, 0);
    json_key(out, "error");
    json_begin_object(out);
    json_key(out, "code");
    json_cstring(out, code);
    json_key(out, "message");
    json_cstring(out, message);
    json_end_object(out);
}

void dispatch_error(json_writer *out, int64_t id, const char *code, const char *message) {
    begin_answer(out, id);
    write_error(out, code, message);
    json_end_object(out);
    json_raw(out, "\n");
}

void command_result(command_ctx *ctx) {
    ctx->started = 1;
    json_key(ctx->out, "ok");
    json_bool(ctx->out, 1);
    json_key(ctx->out, "result");
}

void command_fail(command_ctx *ctx, const char *code, const char *message) {
    if (ctx->started || ctx->failed) {
        return;
    }
    ctx->failed = 1;
    write_error(ctx->out, code, message);
}

void command_fail_jvmti(command_ctx *ctx, const char *what, int jvmti_error) {
    char message[160];
    snprintf(message, sizeof message, "%s failed: JVMTI error %d", what, jvmti_error);
    command_fail(ctx, "jvmti_error", message);
}

void dispatch_line(JNIEnv *jni, int client_id, const char *line, size_t len, json_writer *out) {
    const char *error = NULL;
    if (request_parse(line, len, &parsed, &error) != 0) {
        dispatch_error(out, 0, "bad_request", error);
        return;
    }
    int64_t id = request_int(&parsed, "id", 0);
    int64_t version = request_int(&parsed, "v", -1);
    const char *name = request_string(&parsed, "cmd");
    if (name == NULL) {
        dispatch_error(out, id, "bad_request", "missing \"cmd\"");
        return;
    }
    /* hello and detach keep their shape across versions: a CLI of another version can learn which
     * version this agent speaks, and unload it */
    int any_version = strcmp(name, "hello") == 0 || strcmp(name, "detach") == 0;
    if (version != PROTOCOL_VERSION && !any_version) {
        char message[64];
        snprintf(message, sizeof message, "this agent speaks protocol version %d", PROTOCOL_VERSION);
        dispatch_error(out, id, "unsupported_version", message);
        return;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        if (strcmp(commands[i].name, name) == 0) {
            command_ctx ctx = { jni, &parsed, out, client_id, 0, 0 };
            begin_answer(out, id);
            /* the agent thread never returns to Java: its local references go only with a frame */
            if ((*jni)->PushLocalFrame(jni, JNI_COMMAND_LOCALS) != 0) {
                jni_cleared_exception(jni);
                command_fail(&ctx, "out_of_memory", "no room for the command's local references");
            } else {
                commands[i].run(&ctx);
                (*jni)->PopLocalFrame(jni, NULL);
            }
            if (!ctx.started && !ctx.failed) {
                command_fail(&ctx, "internal", "command produced no answer");
            }
            json_end_object(out);
            json_raw(out, "\n");
            return;
        }
    }
    dispatch_error(out, id, "unknown_command", "unknown command");
}

void dispatch_write_commands(json_writer *out) {
    json_begin_array(out);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        json_cstring(out, commands[i].name);
    }
    json_end_array(out);
}

void dispatch_client_gone(int client_id) {
    alloc_client_gone(client_id);
    contention_client_gone(client_id);
}
