/* Indices for the distinct methods of one answer, in the order they were first seen: frames refer
 * to a method by its index and the answer carries each method once. Allocated and freed per
 * answer, so that indices stay the same for the whole answer whatever happens to the frames cache. */
#ifndef JVMTICLI_METHOD_INDEX_H
#define JVMTICLI_METHOD_INDEX_H

#include <jni.h>
#include <string.h>

#include "key_index.h"

typedef struct {
    key_index ids; /* keys: jmethodID */
} method_index;

static inline void method_index_init(method_index *t) {
    key_index_init(&t->ids, sizeof(jmethodID));
}

static inline void method_index_free(method_index *t) {
    key_index_free(&t->ids);
}

/* The index of m, adding it if new; -1 when out of memory. */
static inline int32_t method_index_of(method_index *t, jmethodID m) {
    return key_index_of(&t->ids, &m);
}

static inline size_t method_index_count(const method_index *t) {
    return t->ids.count;
}

static inline jmethodID method_index_method(const method_index *t, size_t i) {
    jmethodID m;
    memcpy(&m, key_index_key(&t->ids, i), sizeof m);
    return m;
}

#endif
