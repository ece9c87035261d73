/* The request dispatcher: parses a request line, checks its protocol version, finds the
 * command in its table and frames the command's answer (answer.h). The only file that knows the
 * commands (commands.h); it also answers `hello` (which lists them) and `detach`. */
#ifndef JVMTICLI_DISPATCH_H
#define JVMTICLI_DISPATCH_H

#include <jni.h>
#include <stddef.h>

#include "json.h"

void dispatch_line(JNIEnv *jni, int client_id, int client_fd, const char *line, size_t len, json_writer *out);

/* The client's connection closed: end whatever it had running. */
void dispatch_client_gone(int client_id);

/* Whether the client has something running (a session) that its silence must not end. */
int dispatch_client_has_work(int client_id);

#endif
