/* glibc's malloc arenas as the process's mappings show them, read without taking any of malloc's
 * locks (malloc_info and mallinfo2 walk each arena's free lists holding its lock, a stall of every
 * thread allocating from it for as long as the lists are long).
 * - The main arena's heap is the break: smaps names it [heap].
 * - Every other arena's memory is in heaps glibc maps itself: HEAP_MAX_SIZE (64 MiB on 64-bit)
 *   of address space aligned to its size, read-write as far as it has grown, the rest PROT_NONE,
 *   opening with glibc's heap_info: the arena it belongs to (right after the header in an arena's
 *   first heap; in another heap of the same arena otherwise), the heap before it (NULL in a first
 *   heap, else another such heap), its size, and the part it made read-write (its mapping's length).
 *   A read-write anonymous mapping starting on such a boundary is counted only when its first
 *   words say all that, read through /proc/self/mem (a heap unmapped meanwhile is an error, not a
 *   fault).
 * Blocks malloc serves with mmap (128 KiB and more by default) are mappings of their own, in no
 * arena, and are not told apart from the others. */
#ifndef JVMTICLI_MALLOC_ARENAS_H
#define JVMTICLI_MALLOC_ARENAS_H

#include <stdint.h>

#include "json.h"

typedef struct {
    int main_found;          /* smaps has a [heap] */
    uint64_t main_bytes;     /* its length */
    uint64_t main_resident;  /* its Rss */
    uint32_t arenas;         /* other arenas: their first heaps */
    uint32_t heaps;          /* all their heaps */
    uint64_t heap_bytes;     /* their read-write parts */
    uint64_t heap_resident;  /* their Rss */
} malloc_arenas;

/* Reads /proc/self/smaps: 0, or -1 with *error set to a static message. */
int malloc_arenas_read(malloc_arenas *out, const char **error);

/* The figures as keys of the object being written. */
void malloc_arenas_write(json_writer *w, const malloc_arenas *a);

#endif
