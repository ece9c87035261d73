#include "key_index.h"

#include <stdlib.h>
#include <string.h>

#define INITIAL_CAPACITY 256

void key_index_init(key_index *t, size_t key_size) {
    memset(t, 0, sizeof *t);
    t->key_size = key_size;
}

void key_index_free(key_index *t) {
    free(t->keys);
    free(t->slots);
    key_index_init(t, t->key_size);
}

const void *key_index_key(const key_index *t, size_t i) {
    return t->keys + i * t->key_size;
}

static size_t home_of(const unsigned char *key, size_t key_size, size_t capacity) {
    uint64_t h = 0;
    for (size_t at = 0; at < key_size; at += sizeof(uint32_t)) {
        uint32_t word = 0;
        memcpy(&word, key + at, key_size - at < sizeof word ? key_size - at : sizeof word);
        h = (h ^ word) * 0x9E3779B97F4A7C15ull;
    }
    return (size_t)(h >> 17) & (capacity - 1);
}

/* Doubles the hash (and the room for keys with it). */
static int grow(key_index *t) {
    size_t capacity = t->capacity == 0 ? INITIAL_CAPACITY : t->capacity * 2;
    if (capacity > (size_t)INT32_MAX) {
        return -1;
    }
    int32_t *slots = calloc(capacity, sizeof *slots);
    unsigned char *keys = realloc(t->keys, capacity / 2 * t->key_size);
    if (slots == NULL || keys == NULL) {
        free(slots);
        if (keys != NULL) {
            t->keys = keys;
        }
        return -1;
    }
    t->keys = keys;
    for (size_t i = 0; i < t->count; i++) {
        size_t at = home_of(key_index_key(t, i), t->key_size, capacity);
        while (slots[at] != 0) {
            at = (at + 1) & (capacity - 1);
        }
        slots[at] = (int32_t)(i + 1);
    }
    free(t->slots);
    t->slots = slots;
    t->capacity = capacity;
    return 0;
}

int32_t key_index_of(key_index *t, const void *key) {
    if (t->count >= t->capacity / 2 && grow(t) != 0 && t->capacity == 0) {
        return -1;
    }
    size_t mask = t->capacity - 1;
    for (size_t at = home_of(key, t->key_size, t->capacity);; at = (at + 1) & mask) {
        int32_t slot = t->slots[at];
        if (slot == 0) {
            if (t->count >= t->capacity / 2) {
                return -1; /* full and cannot grow */
            }
            memcpy(t->keys + t->count * t->key_size, key, t->key_size);
            t->slots[at] = (int32_t)(t->count + 1);
            return (int32_t)t->count++;
        }
        if (memcmp(key_index_key(t, (size_t)slot - 1), key, t->key_size) == 0) {
            return slot - 1;
        }
    }
}
