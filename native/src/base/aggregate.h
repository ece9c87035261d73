/* Bounded aggregation tables for event callbacks: everything is allocated when a session
 * starts and freed when it stops; a sample that does not fit is refused (the caller counts it),
 * never grows the table. The tables do no locking: callers hold their session's raw monitor. */
#ifndef JVMTICLI_AGGREGATE_H
#define JVMTICLI_AGGREGATE_H

#include <jvmti.h>
#include <stddef.h>
#include <stdint.h>

#define STACK_MAX_FRAMES 64

/* One distinct (key, aux, stack): key is a class or monitor index, aux a thread index or -1. */
typedef struct {
    uint64_t hash;      /* 0: free slot */
    int32_t key;
    int32_t aux;
    int32_t depth;
    uint64_t count;
    uint64_t sum;       /* sampled bytes, or blocked nanoseconds */
    uint64_t weight;    /* estimated allocated bytes */
    jvmtiFrameInfo frames[STACK_MAX_FRAMES];
} stack_entry;

typedef struct {
    stack_entry *slots;
    size_t capacity;    /* a power of two */
    size_t used;
} stack_table;

/* capacity is rounded up to a power of two; at most 3/4 of it is ever used. 0 or -1 (no memory). */
int stack_table_init(stack_table *t, size_t capacity);
void stack_table_free(stack_table *t);
/* The entry for this key and stack (depth clamped to STACK_MAX_FRAMES), added with zero counts
 * if new; NULL when the table is full. */
stack_entry *stack_table_find_or_add(stack_table *t, int32_t key, int32_t aux, const jvmtiFrameInfo *frames, int depth);

/* Interned strings in a fixed arena: a string gets a small index, the same string the same one. */
typedef struct {
    int32_t *slots;     /* index + 1, 0 when free */
    size_t capacity;
    uint32_t *offsets;  /* index -> arena offset */
    size_t count;
    size_t max_count;
    char *arena;
    size_t arena_len;
    size_t arena_cap;
} name_table;

int name_table_init(name_table *t, size_t max_count, size_t arena_bytes);
void name_table_free(name_table *t);
/* The index of s, adding it if new; -1 when the table or its arena is full. */
int32_t name_table_intern(name_table *t, const char *s);
const char *name_table_get(const name_table *t, int32_t index);

/* What one heap sample of `size` bytes stands for, at a mean sampling interval of `interval`
 * bytes: size / (1 - e^(-size/interval)), the inverse of the chance that an object of that size
 * is sampled at all. Small objects stand for about one interval, huge ones for themselves. */
uint64_t sample_weight(uint64_t size, uint64_t interval);

#endif
