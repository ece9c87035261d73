/* Opens a directory named by an absolute path so that nobody but root and this process's user can
 * have chosen what the path reaches, now or later: every component is opened relative to the one
 * before it without following a link (a link anywhere is refused), each is a directory of root or
 * of this process's effective user, each above the last lets no one else replace its entries
 * (not writable by group or others, unless sticky, as /tmp), and the last is writable by no one
 * else at all. A file the JVM then creates there by that path reaches what was checked. */
#ifndef JVMTICLI_TRUSTED_DIRECTORY_H
#define JVMTICLI_TRUSTED_DIRECTORY_H

#include <stddef.h>

/* An O_PATH descriptor of the directory, or -1 with a one-line reason in error. */
int trusted_directory_open(const char *path, char *error, size_t error_size);

#endif
