#include "stack_counts.h"

#include <stdlib.h>
#include <string.h>

void stack_counts_init(stack_counts *t) {
    memset(t, 0, sizeof *t);
}

void stack_counts_clear(stack_counts *t) {
    for (size_t i = 0; i < t->count; i++) {
        free(t->items[i].stack);
    }
    free(t->items);
    stack_counts_init(t);
}

/* FNV-1a: compared before the bytes, so that most lookups compare no stack. */
static uint64_t hash_of(const char *s, size_t len) {
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < len; i++) {
        h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
    }
    return h;
}

static stack_count *find(const stack_counts *t, const char *stack, size_t len, uint64_t hash) {
    for (size_t i = 0; i < t->count; i++) {
        stack_count *c = &t->items[i];
        if (c->hash == hash && c->len == len && memcmp(c->stack, stack, len) == 0) {
            return c;
        }
    }
    return NULL;
}

static void add(stack_counts *t, const char *stack, size_t len, uint64_t samples) {
    uint64_t hash = hash_of(stack, len);
    stack_count *found = find(t, stack, len, hash);
    if (found != NULL) {
        found->samples += samples;
        return;
    }
    if (len > STACK_COUNTS_MAX_BYTES - t->bytes) {
        t->lost += samples;
        return;
    }
    if (t->count == t->capacity) {
        size_t capacity = t->capacity == 0 ? 16 : t->capacity * 2;
        stack_count *items = realloc(t->items, capacity * sizeof *items);
        if (items == NULL) {
            t->lost += samples;
            return;
        }
        t->items = items;
        t->capacity = capacity;
    }
    char *copy = malloc(len == 0 ? 1 : len);
    if (copy == NULL) {
        t->lost += samples;
        return;
    }
    memcpy(copy, stack, len);
    t->items[t->count++] = (stack_count){ copy, len, hash, samples };
    t->bytes += len;
}

void stack_counts_add_line(stack_counts *t, const char *line, size_t len) {
    size_t space = len;
    while (space > 0 && line[space - 1] != ' ') {
        space--;
    }
    if (space == 0 || space == len) {
        return;
    }
    uint64_t samples = 0;
    for (size_t i = space; i < len; i++) {
        if (line[i] < '0' || line[i] > '9' || samples > (UINT64_MAX - 9) / 10) {
            return;
        }
        samples = samples * 10 + (uint64_t)(line[i] - '0');
    }
    add(t, line, space - 1, samples);
}

uint64_t stack_counts_of(const stack_counts *t, const char *stack, size_t len) {
    const stack_count *c = find(t, stack, len, hash_of(stack, len));
    return c == NULL ? 0 : c->samples;
}

void stack_counts_add_gain(stack_counts *into, const stack_counts *earlier, const stack_counts *later) {
    for (size_t i = 0; i < later->count; i++) {
        const stack_count *c = &later->items[i];
        uint64_t before = stack_counts_of(earlier, c->stack, c->len);
        if (c->samples > before) {
            add(into, c->stack, c->len, c->samples - before);
        }
    }
}
