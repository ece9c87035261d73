/* How many bytes of the C heap the agent holds: every malloc, calloc, realloc, free, strdup and
 * strndup the agent's own code makes is routed here at link time (-Wl,--wrap=..., native/pom.xml),
 * so no call site changes. Memory JVMTI's Allocate hands out is not counted here. */
#ifndef JVMTICLI_ALLOC_COUNT_H
#define JVMTICLI_ALLOC_COUNT_H

#include <stdint.h>

/* The usable size of every block the agent has allocated and not yet freed. */
int64_t alloc_count_held_bytes(void);

#endif
