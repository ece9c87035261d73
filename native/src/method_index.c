#include "method_index.h"

#include <stdlib.h>
#include <string.h>

#define INITIAL_CAPACITY 256

void method_index_init(method_index *t) {
    memset(t, 0, sizeof *t);
}

void method_index_free(method_index *t) {
    free(t->methods);
    free(t->slots);
    memset(t, 0, sizeof *t);
}

static size_t home_of(jmethodID m, size_t capacity) {
    return (size_t)((((uintptr_t)m >> 3) * 0x9E3779B97F4A7C15ull) >> 17) & (capacity - 1);
}

/* Doubles the hash (and the index array with it); kept at most half full. */
static int grow(method_index *t) {
    size_t capacity = t->capacity == 0 ? INITIAL_CAPACITY : t->capacity * 2;
    if (capacity > (size_t)INT32_MAX) {
        return -1;
    }
    int32_t *slots = calloc(capacity, sizeof *slots);
    jmethodID *methods = realloc(t->methods, capacity / 2 * sizeof *methods);
    if (slots == NULL || methods == NULL) {
        free(slots);
        if (methods != NULL) {
            t->methods = methods;
        }
        return -1;
    }
    t->methods = methods;
    for (size_t i = 0; i < t->count; i++) {
        size_t at = home_of(methods[i], capacity);
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

int32_t method_index_of(method_index *t, jmethodID m) {
    if (t->count >= t->capacity / 2 && grow(t) != 0) {
        /* full and cannot grow: a method already there still has its index */
        if (t->capacity == 0) {
            return -1;
        }
    }
    size_t mask = t->capacity - 1;
    for (size_t at = home_of(m, t->capacity);; at = (at + 1) & mask) {
        int32_t slot = t->slots[at];
        if (slot == 0) {
            if (t->count >= t->capacity / 2) {
                return -1;
            }
            t->methods[t->count] = m;
            t->slots[at] = (int32_t)(t->count + 1);
            return (int32_t)t->count++;
        }
        if (t->methods[slot - 1] == m) {
            return slot - 1;
        }
    }
}
