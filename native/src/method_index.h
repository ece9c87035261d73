/* Indices for the distinct methods of one answer, in the order they were first seen: frames refer
 * to a method by its index and the answer carries each method once. Keyed by jmethodID in an open
 * addressing table that grows with the methods actually seen (allocated and freed per answer), so
 * that indices stay the same for the whole answer whatever happens to the frames cache. */
#ifndef JVMTICLI_METHOD_INDEX_H
#define JVMTICLI_METHOD_INDEX_H

#include <jni.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    jmethodID *methods; /* index -> method, count of them */
    int32_t *slots;     /* hash: index + 1, 0 when free; capacity of them (a power of two) */
    size_t count;
    size_t capacity;
} method_index;

void method_index_init(method_index *t);
void method_index_free(method_index *t);
/* The index of m, adding it if new; -1 when out of memory. */
int32_t method_index_of(method_index *t, jmethodID m);

#endif
