#include "answer.h"

#include <poll.h>
#include <stdio.h>

#include "agent.h"

void answer_begin(json_writer *out, int64_t id) {
    json_begin_object(out);
    json_field_int(out, "v", PROTOCOL_VERSION);
    json_field_int(out, "id", id);
}

void answer_end(json_writer *out) {
    json_end_object(out);
    json_raw(out, "\n");
}

static void write_error(json_writer *out, const char *code, const char *message) {
    json_field_bool(out, "ok", 0);
    json_begin_object_field(out, "error");
    json_field_cstring(out, "code", code);
    json_field_cstring(out, "message", message);
    json_end_object(out);
}

void answer_error(json_writer *out, int64_t id, const char *code, const char *message) {
    answer_begin(out, id);
    write_error(out, code, message);
    answer_end(out);
}

void command_result(command_ctx *ctx) {
    ctx->started = 1;
    json_field_bool(ctx->out, "ok", 1);
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

int command_client_hung_up(const command_ctx *ctx) {
    struct pollfd peer = { .fd = ctx->client_fd, .events = POLLRDHUP };
    return poll(&peer, 1, 0) > 0 && (peer.revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL)) != 0;
}
