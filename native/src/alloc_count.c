#include "alloc_count.h"

#include <malloc.h>
#include <stdlib.h>
#include <string.h>

void *__real_malloc(size_t size);
void *__real_calloc(size_t count, size_t size);
void *__real_realloc(void *block, size_t size);
void __real_free(void *block);

/* Counted by malloc_usable_size, so a free subtracts exactly what its allocation added without
 * keeping a size next to each block. */
static int64_t held;

static void count(void *block, int sign) {
    if (block != NULL) {
        __atomic_add_fetch(&held, sign * (int64_t)malloc_usable_size(block), __ATOMIC_RELAXED);
    }
}

int64_t alloc_count_held_bytes(void) {
    return __atomic_load_n(&held, __ATOMIC_RELAXED);
}

void *__wrap_malloc(size_t size) {
    void *block = __real_malloc(size);
    count(block, 1);
    return block;
}

void *__wrap_calloc(size_t count_, size_t size) {
    void *block = __real_calloc(count_, size);
    count(block, 1);
    return block;
}

/* realloc may free the old block (size 0, or a move), so its size is taken before the call and
 * given back only when the call succeeded or freed it. */
void *__wrap_realloc(void *block, size_t size) {
    size_t before = block == NULL ? 0 : malloc_usable_size(block);
    void *moved = __real_realloc(block, size);
    if (moved != NULL || (block != NULL && size == 0)) {
        __atomic_sub_fetch(&held, (int64_t)before, __ATOMIC_RELAXED);
        count(moved, 1);
    }
    return moved;
}

void __wrap_free(void *block) {
    count(block, -1);
    __real_free(block);
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
