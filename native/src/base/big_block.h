/* The agent's large blocks, mapped and unmapped by the agent itself instead of by glibc's malloc.
 * glibc serves a block of at least its mmap threshold (128 KiB to start with) with a mapping of
 * its own, and when such a block is freed it raises that threshold, for the whole process, to the
 * block's size (up to 32 MiB) and its trim threshold to twice that: from then on every thread's
 * allocations below it come from the malloc arenas, which keep freed memory resident. One freed
 * 4 MiB session table would change how the target's own threads use memory for the rest of its
 * life; a block glibc never sees changes nothing. */
#ifndef JVMTICLI_BIG_BLOCK_H
#define JVMTICLI_BIG_BLOCK_H

#include <stddef.h>

/* glibc's own starting mmap threshold (M_MMAP_THRESHOLD's default). */
#define BIG_BLOCK_MIN ((size_t)128 * 1024)
/* How many big blocks can be held at once; past that, blocks come from malloc again. */
#define BIG_BLOCK_SLOTS 64

/* A zeroed block of at least `bytes` bytes, page-aligned; NULL when out of slots or memory. */
void *big_block_map(size_t bytes);
/* The bytes mapped for `block`, or 0 when it is not a big block (NULL included). */
size_t big_block_size(const void *block);
/* The block grown or shrunk to at least `bytes` bytes, its contents kept up to the smaller size,
 * maybe moved; NULL (and `block` unchanged) on failure or when `block` is not a big block. */
void *big_block_remap(void *block, size_t bytes);
/* Unmaps `block` and returns the bytes it had mapped, or 0 (nothing done) when it is not a big
 * block. */
size_t big_block_unmap(void *block);

#endif
