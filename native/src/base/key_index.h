/* Indices for distinct fixed-size keys, in the order they were first seen: the key of index i is
 * at keys + i * key_size. An open addressing hash of the indices, kept at most half full and grown
 * by doubling, allocated and freed with the table. Keys are hashed and compared as bytes, so they
 * must have no padding. Used for the methods and the stack tree of one answer. */
#ifndef JVMTICLI_KEY_INDEX_H
#define JVMTICLI_KEY_INDEX_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    unsigned char *keys;  /* count of them, room for capacity / 2 */
    size_t key_size;
    int32_t *slots;       /* hash: index + 1, 0 when free; capacity of them (a power of two) */
    size_t count;
    size_t capacity;
} key_index;

void key_index_init(key_index *t, size_t key_size);
void key_index_free(key_index *t);
/* The index of key, adding it if new; -1 when out of memory (keys already there keep theirs). */
int32_t key_index_of(key_index *t, const void *key);
/* The key of index i (i < count). */
const void *key_index_key(const key_index *t, size_t i);

#endif
