/* Reads of this process's own memory that fail, rather than fault, where the memory is no longer
 * mapped: for another thread's data, which that thread may free meanwhile. */
#ifndef JVMTICLI_OWN_MEMORY_H
#define JVMTICLI_OWN_MEMORY_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uintptr_t address;  /* 0: nothing to read (ok stays 0) */
    void *into;
    size_t size;
    int ok;             /* set: 1 when all size bytes were read */
} own_read;

/* Performs each read, a few syscalls for all of them. */
void own_memory_read_each(own_read *reads, size_t count);

#endif
