#include "dispatch.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "agent.h"
#include "alloc_count.h"
#include "answer.h"
#include "capabilities.h"
#include "commands.h"
#include "jni_util.h"
#include "session.h"

static void cmd_hello(command_ctx *ctx);
static void cmd_detach(command_ctx *ctx);

typedef struct {
    const char *name;
    void (*run)(command_ctx *ctx);
} command;

static const command commands[] = {
    { "hello", cmd_hello },
    { "threads", cmd_threads },
    { "cpu", cmd_cpu },
    { "stacks", cmd_stacks },
    { "vm", cmd_vm },
    { "vthreads", cmd_vthreads },
    { "blockers", cmd_blockers },
    { "detach", cmd_detach },
    { "alloc.start", cmd_alloc_start },
    { "alloc.stop", cmd_alloc_stop },
    { "contention.start", cmd_contention_start },
    { "contention.stop", cmd_contention_stop },
    { "jit", cmd_jit },
    { "heap", cmd_heap },
    { "heap.dump", cmd_heap_dump },
    { "heap.paths", cmd_heap_paths },
    { "memory", cmd_memory },
    { "classloaders", cmd_class_loaders },
    { "profile.start", cmd_profile_start },
    { "profile.stop", cmd_profile_stop },
    { "pauses.start", cmd_pauses_start },
    { "pauses.stop", cmd_pauses_stop },
    { "nativemem.start", cmd_nativemem_start },
    { "nativemem.stop", cmd_nativemem_stop },
    { "trace.start", cmd_trace_start },
    { "trace.bytes", cmd_trace_bytes },
    { "trace.install", cmd_trace_install },
    { "trace.stop", cmd_trace_stop },
    { "exceptions.start", cmd_exceptions_start },
    { "exceptions.stop", cmd_trace_stop },
    { "parks.start", cmd_parks_start },
    { "parks.bytes", cmd_parks_bytes },
    { "parks.install", cmd_parks_install },
    { "parks.stop", cmd_parks_stop },
};

static request parsed; /* one request at a time, on the agent thread */

void dispatch_line(JNIEnv *jni, int client_id, int client_fd, const char *line, size_t len, json_writer *out) {
    const char *error = NULL;
    if (request_parse(line, len, &parsed, &error) != 0) {
        answer_error(out, 0, "bad_request", error);
        return;
    }
    int64_t id = request_int(&parsed, "id", 0);
    int64_t version = request_int(&parsed, "v", -1);
    const char *name = request_string(&parsed, "cmd");
    if (name == NULL) {
        answer_error(out, id, "bad_request", "missing \"cmd\"");
        return;
    }
    /* hello and detach keep their shape across versions: a CLI of another version can learn which
     * version this agent speaks, and unload it */
    int any_version = strcmp(name, "hello") == 0 || strcmp(name, "detach") == 0;
    if (version != PROTOCOL_VERSION && !any_version) {
        char message[64];
        snprintf(message, sizeof message, "this agent speaks protocol version %d", PROTOCOL_VERSION);
        answer_error(out, id, "unsupported_version", message);
        return;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        if (strcmp(commands[i].name, name) == 0) {
            command_ctx ctx = { jni, &parsed, out, client_id, client_fd, 0, 0 };
            answer_begin(out, id);
            /* the agent thread never returns to Java: its local references go only with a frame */
            if ((*jni)->PushLocalFrame(jni, JNI_COMMAND_LOCALS) != 0) {
                jni_cleared_exception(jni);
                command_fail(&ctx, "out_of_memory", "no room for the command's local references");
            } else {
                int own_work = strncmp(name, "profile.", strlen("profile.")) != 0;
                if (own_work) {
                    profile_own_work_begin(jni);
                }
                commands[i].run(&ctx);
                if (own_work) {
                    profile_own_work_end(jni);
                }
                (*jni)->PopLocalFrame(jni, NULL);
            }
            if (!ctx.started && !ctx.failed) {
                command_fail(&ctx, "internal", "command produced no answer");
            }
            answer_end(out);
            return;
        }
    }
    answer_error(out, id, "unknown_command", "unknown command");
}

static void write_commands(json_writer *out) {
    json_begin_array(out);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        json_cstring(out, commands[i].name);
    }
    json_end_array(out);
}

void dispatch_client_gone(int client_id) {
    session_client_gone(client_id);
}

int dispatch_client_has_work(int client_id) {
    return session_owned_by(client_id);
}

static void write_property(command_ctx *ctx, const char *key, const char *property) {
    char *value = NULL;
    json_key(ctx->out, key);
    if ((*the_agent.jvmti)->GetSystemProperty(the_agent.jvmti, property, &value) == JVMTI_ERROR_NONE) {
        json_mutf8(ctx->out, value);
        (*the_agent.jvmti)->Deallocate(the_agent.jvmti, (unsigned char *)value);
    } else {
        json_null(ctx->out);
    }
}

static void cmd_hello(command_ctx *ctx) {
    json_writer *w = ctx->out;
    command_result(ctx);
    json_begin_object(w);
    json_field_cstring(w, "agent", AGENT_VERSION);
    json_field_int(w, "protocol", PROTOCOL_VERSION);
    json_field_int(w, "pid", getpid());
    json_field_cstring(w, "phase", the_agent.phase == PHASE_STARTUP ? "startup" : "attach");
    json_field_int(w, "mallocBytes", alloc_count_held_bytes());
    json_begin_object_field(w, "jvm");
    write_property(ctx, "name", "java.vm.name");
    write_property(ctx, "vendor", "java.vm.vendor");
    write_property(ctx, "version", "java.vm.version");
    write_property(ctx, "specVersion", "java.vm.specification.version");
    write_property(ctx, "info", "java.vm.info");
    json_end_object(w);
    json_key(w, "capabilities");
    capabilities_write(w, &the_agent.held);
    json_key(w, "commands");
    write_commands(w);
    json_end_object(w);
}

/* The server returns after this answer, and the agent gives back everything (lifecycle.c). */
static void cmd_detach(command_ctx *ctx) {
    command_result(ctx);
    json_begin_object(ctx->out);
    json_field_bool(ctx->out, "detached", 1);
    json_end_object(ctx->out);
    (void)agent_move(AGENT_RUNNING, AGENT_STOPPING);
}
