/* Reads of this process's own memory that fail, rather than fault, where the memory is no longer
 * mapped: for another thread's data, which that thread may free meanwhile. */
#ifndef JVMTICLI_OWN_MEMORY_H
#define JVMTICLI_OWN_MEMORY_H

#include <stddef.h>
#include <stdint.h>

/* Copies len bytes at address into buf. Returns 0, or -1 when any of them cannot be read. */
int own_memory_read(uintptr_t address, void *buf, size_t len);

#endif
