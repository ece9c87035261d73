/* The answer API a command writes to: its context (the request, the writer, the client), its
 * result or its failure. An answer is one line, {"v":7,"id":N,"ok":true,"result":...} or
 * {"v":7,"id":N,"ok":false,"error":{"code":...,"message":...}}; the dispatcher (dispatch.h) opens
 * and closes it around the command. Commands depend on this file, never on the dispatcher. */
#ifndef JVMTICLI_ANSWER_H
#define JVMTICLI_ANSWER_H

#include <jni.h>
#include <stdint.h>

#include "json.h"
#include "request.h"

typedef struct {
    JNIEnv *jni;
    const request *req;
    json_writer *out;
    int client_id;
    int client_fd;   /* the requester's connection: only to see whether it hung up */
    int failed;      /* the command answered with an error */
    int started;     /* the command began its result */
} command_ctx;

/* Begins the result value; a command writes exactly one JSON value after this. */
void command_result(command_ctx *ctx);

/* Answers with an error instead of a result; only before command_result. */
void command_fail(command_ctx *ctx, const char *code, const char *message);

/* Whether the requester closed its end: a command that waits can stop waiting for nobody. */
int command_client_hung_up(const command_ctx *ctx);

/* Answers a JVMTI failure by name. */
void command_fail_jvmti(command_ctx *ctx, const char *what, int jvmti_error);

/* Opens the answer to request id: {"v":7,"id":N ... */
void answer_begin(json_writer *out, int64_t id);

/* Closes the answer and ends its line. */
void answer_end(json_writer *out);

/* A whole error answer, for a request that reached no command. */
void answer_error(json_writer *out, int64_t id, const char *code, const char *message);

#endif
