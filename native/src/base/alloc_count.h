/* How many bytes of the C heap the agent holds: every malloc, calloc, realloc, free, strdup and
 * strndup the agent's own code makes is routed here at link time (-Wl,--wrap=..., native/pom.xml),
 * so no call site changes; a block of BIG_BLOCK_MIN or more is mapped by big_block.c instead of
 * glibc (why: big_block.h). Memory JVMTI's Allocate hands out is not counted here. */
#ifndef JVMTICLI_ALLOC_COUNT_H
#define JVMTICLI_ALLOC_COUNT_H

#include <stdint.h>

/* The usable size of every block the agent has allocated and not yet freed (a big block: the
 * bytes it maps). */
int64_t alloc_count_held_bytes(void);

#endif
