/* The socket server: a UNIX domain socket in a private directory, polled by the agent's one
 * thread, which reads newline-framed requests from many clients and answers them in turn. */
#ifndef JVMTICLI_SERVER_H
#define JVMTICLI_SERVER_H

#include <jni.h>
#include <stddef.h>

/* Creates the socket directory and the listening socket. Returns an agent_status. */
int server_open(void);

/* Serves until a request (detach) moves the agent to AGENT_STOPPING. Runs on the agent thread. */
void server_run(JNIEnv *jni);

/* Asks the server thread to check its socket file now rather than at its next periodic check
 * (a re-attach after a temp cleaner removed it). Safe from any thread. */
void server_check_socket_soon(void);

/* Closes every connection and removes the socket file. */
void server_close(void);

/* Removes the socket file only (VM shutdown). */
void server_unlink(void);

#endif
