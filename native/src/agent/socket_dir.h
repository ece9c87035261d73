/* The agent's socket directory, /tmp/.jvmti-cli-<uid>: made private to the JVM's user, and taken
 * back from whoever put something else in its place where that can be done safely. */
#ifndef JVMTICLI_SOCKET_DIR_H
#define JVMTICLI_SOCKET_DIR_H

/* Makes parent/name a directory of this effective uid with mode 0700; 0, or -1 when it cannot be. */
int socket_dir_ensure(const char *parent, const char *name);

#endif
