/* The agent's C-heap wrappers (alloc_count.c, big_block.c) as linked into the agent, with
 * -Wl,--wrap, against glibc's own malloc (no sanitizer, which would replace it): the agent's
 * large blocks must not change how glibc serves the rest of the process. glibc maps a block of
 * its mmap threshold or more, and raises that threshold to the size of any mapped block it frees;
 * mallinfo2's hblks counts the blocks it has mapped. */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc_count.h"

void *__real_malloc(size_t size);
void __real_free(void *block);

static int failed;

static void check(int ok, const char *what) {
    if (!ok) {
        failed++;
        fprintf(stderr, "FAILED malloc_threshold: %s\n", what);
    }
}

/* Whether glibc maps a block of this size itself, as a thread of the JVM would ask for it. */
static int glibc_maps(size_t size) {
    size_t mapped_before = mallinfo2().hblks;
    void *probe = __real_malloc(size);
    int maps = mallinfo2().hblks == mapped_before + 1;
    /* not freed: glibc's free of a mapped block raises its threshold, which is what is checked */
    check(probe != NULL, "probe allocated");
    return maps;
}

int main(void) {
    check(glibc_maps(256 * 1024), "glibc maps a 256 KiB block to start with");

    char *table = calloc(4096, 1072); /* the size of alloc's stack table */
    check(table != NULL && table[4096 * 1072 - 1] == 0, "a big calloc is zeroed");
    int64_t held = alloc_count_held_bytes();
    check(held >= 4096 * 1072, "a big block is counted as held");
    char *grown = realloc(table, 8 << 20);
    check(grown != NULL && alloc_count_held_bytes() >= 8 << 20, "a big block grows and stays counted");
    char *shrunk = realloc(grown, 1000);
    check(shrunk != NULL && alloc_count_held_bytes() < held, "a big block shrunk to a small one");
    char *again = realloc(shrunk, 1 << 20);
    check(again != NULL, "a small block grown to a big one");
    free(again);
    check(alloc_count_held_bytes() == 0, "everything freed is no longer held");

    check(glibc_maps(512 * 1024), "after the agent freed blocks of 8 MiB, glibc still maps a 512 KiB block");
    char *text = strdup("counted");
    check(text != NULL && alloc_count_held_bytes() > 0, "strdup is counted");
    free(text);
    check(alloc_count_held_bytes() == 0, "strdup's block freed");
    printf("malloc_threshold: %s\n", failed == 0 ? "passed" : "FAILED");
    return failed == 0 ? 0 : 1;
}
