/* Sweeps the agent's socket directory for the sockets of JVMs that are gone: a JVM killed with
 * SIGKILL never removes its <pid>.sock. */
#ifndef JVMTICLI_STALE_SOCKETS_H
#define JVMTICLI_STALE_SOCKETS_H

/* Removes every <pid>.sock in dir, other than own_name, that nobody listens on. dir must be a
 * real directory of this effective uid closed to everyone else, or nothing is touched. */
void stale_sockets_remove(const char *dir, const char *own_name);

#endif
