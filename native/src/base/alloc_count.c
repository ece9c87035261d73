#include "alloc_count.h"

#include "big_block.h"

#include <malloc.h>
#include <stdlib.h>
#include <string.h>

void *__real_malloc(size_t size);
void *__real_calloc(size_t count, size_t size);
void *__real_realloc(void *block, size_t size);
void __real_free(void *block);

/* Counted by malloc_usable_size (a big block: by the bytes it maps), so a free subtracts exactly
 * what its allocation added without keeping a size next to each block. */
static int64_t held;

static void count(void *block, int sign) {
    if (block != NULL) {
        __atomic_add_fetch(&held, sign * (int64_t)malloc_usable_size(block), __ATOMIC_RELAXED);
    }
}

int64_t alloc_count_held_bytes(void) {
    return __atomic_load_n(&held, __ATOMIC_RELAXED);
}

static void add(int64_t bytes) {
    __atomic_add_fetch(&held, bytes, __ATOMIC_RELAXED);
}

/* A block of BIG_BLOCK_MIN or more is mapped by big_block.c (zeroed), so that glibc never frees a
 * mapped block of ours and raises its thresholds for the whole JVM; NULL when it could not be. */
static void *map_big(size_t size) {
    void *block = size >= BIG_BLOCK_MIN ? big_block_map(size) : NULL;
    if (block != NULL) {
        add((int64_t)big_block_size(block));
    }
    return block;
}

void *__wrap_malloc(size_t size) {
    void *block = map_big(size);
    if (block == NULL) {
        block = __real_malloc(size);
        count(block, 1);
    }
    return block;
}

void *__wrap_calloc(size_t count_, size_t size) {
    void *block = size == 0 || count_ <= SIZE_MAX / size ? map_big(count_ * size) : NULL;
    if (block == NULL) {
        block = __real_calloc(count_, size);
        count(block, 1);
    }
    return block;
}

void __wrap_free(void *block) {
    size_t unmapped = big_block_unmap(block);
    if (unmapped > 0) {
        add(-(int64_t)unmapped);
    } else {
        count(block, -1);
        __real_free(block);
    }
}

/* realloc into or out of a big block: a new block, the contents copied, the old block freed. */
static void *move(void *block, size_t old_size, size_t size) {
    void *moved = __wrap_malloc(size);
    if (moved != NULL) {
        memcpy(moved, block, old_size < size ? old_size : size);
        __wrap_free(block);
    }
    return moved;
}

/* realloc may free the old block (size 0, or a move), so its size is taken before the call and
 * given back only when the call succeeded or freed it. */
void *__wrap_realloc(void *block, size_t size) {
    if (block == NULL) {
        return __wrap_malloc(size);
    }
    size_t mapped = big_block_size(block);
    if (mapped > 0 && size == 0) {
        __wrap_free(block);
        return NULL;
    }
    if (mapped > 0 && size >= BIG_BLOCK_MIN) {
        void *moved = big_block_remap(block, size);
        if (moved != NULL) {
            add((int64_t)big_block_size(moved) - (int64_t)mapped);
        }
        return moved;
    }
    if (mapped > 0 || size >= BIG_BLOCK_MIN) {
        return move(block, mapped > 0 ? mapped : malloc_usable_size(block), size);
    }
    size_t before = malloc_usable_size(block);
    void *moved = __real_realloc(block, size);
    if (moved != NULL || size == 0) {
        __atomic_sub_fetch(&held, (int64_t)before, __ATOMIC_RELAXED);
        count(moved, 1);
    }
    return moved;
}

/* libc's own strdup would allocate with the unwrapped malloc, and the wrapped free would then
 * subtract a block that was never added. */
char *__wrap_strdup(const char *text) {
    size_t size = strlen(text) + 1;
    char *copy = __wrap_malloc(size);
    if (copy != NULL) {
        memcpy(copy, text, size);
    }
    return copy;
}

char *__wrap_strndup(const char *text, size_t limit) {
    size_t length = strnlen(text, limit);
    char *copy = __wrap_malloc(length + 1);
    if (copy != NULL) {
        memcpy(copy, text, length);
        copy[length] = '\0';
    }
    return copy;
}
