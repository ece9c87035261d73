/* The request dispatcher: parses a request line, checks its protocol version, finds the
 * command and frames its answer as {"v":2,"id":N,"ok":true,"result":...}. */
#ifndef JVMTICLI_DISPATCH_H
#define JVMTICLI_DISPATCH_H

#include <jni.h>
#include <stddef.h>
#include <stdint.h>

#include "json.h"
#include "request.h"

typedef struct {
    JNIEnv *jni;
    const request *req;
    json_writer *out;
    int client_id;
    int failed;      /* the command answered with an error */
    int started;     /* the command began its result */
} command_ctx;

/* Begins the result value; a command writes exactly one JSON value after this. */
void command_result(command_ctx *ctx);

/* Answers with an error instead of a result; only before command_result. */
void command_fail(command_ctx *ctx, const char *code, const char *message);

/* Answers a JVMTI failure by name. */
void command_fail_jvmti(command_ctx *ctx, const char *what, int jvmti_error);

void dispatch_line(JNIEnv *jni, int client_id, const char *line, size_t len, json_writer *out);

/* A whole error answer for a request that could not be parsed. */
void dispatch_error(json_writer *out, int64_t id, const char *code, const char *message);

/* Writes the names of every command as a JSON array (hello lists them, so that tests can send
 * hostile arguments to each command that exists, including those added later). */
void dispatch_write_commands(json_writer *out);

/* The client's connection closed: end whatever it had running. */
void dispatch_client_gone(int client_id);

#endif
