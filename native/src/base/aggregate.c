#include "aggregate.h"

#include <stdlib.h>
#include <string.h>

static size_t round_up_pow2(size_t n) {
    size_t p = 16;
    while (p < n) {
        p <<= 1;
    }
    return p;
}

static uint64_t mix(uint64_t h, uint64_t v) {
    h ^= v;
    h *= 0x100000001b3ULL;
    h ^= h >> 29;
    return h;
}

int stack_table_init(stack_table *t, size_t capacity) {
    t->capacity = round_up_pow2(capacity);
    t->used = 0;
    t->slots = calloc(t->capacity, sizeof *t->slots);
    return t->slots == NULL ? -1 : 0;
}

void stack_table_free(stack_table *t) {
    free(t->slots);
    t->slots = NULL;
    t->capacity = 0;
    t->used = 0;
}

static int same_stack(const stack_entry *e, int32_t key, int32_t aux, const jvmtiFrameInfo *frames, int depth) {
    if (e->key != key || e->aux != aux || e->depth != depth) {
        return 0;
    }
    for (int i = 0; i < depth; i++) {
        if (e->frames[i].method != frames[i].method || e->frames[i].location != frames[i].location) {
            return 0;
        }
    }
    return 1;
}

stack_entry *stack_table_find_or_add(stack_table *t, int32_t key, int32_t aux, const jvmtiFrameInfo *frames, int depth) {
    if (depth < 0) {
        depth = 0;
    }
    if (depth > STACK_MAX_FRAMES) {
        depth = STACK_MAX_FRAMES;
    }
    uint64_t h = 0xcbf29ce484222325ULL;
    h = mix(h, (uint32_t)key);
    h = mix(h, (uint32_t)aux);
    for (int i = 0; i < depth; i++) {
        h = mix(h, (uint64_t)(uintptr_t)frames[i].method);
        h = mix(h, (uint64_t)frames[i].location);
    }
    if (h == 0) {
        h = 1;
    }
    size_t mask = t->capacity - 1;
    for (size_t i = h & mask, probes = 0; probes < t->capacity; i = (i + 1) & mask, probes++) {
        stack_entry *e = &t->slots[i];
        if (e->hash == h && same_stack(e, key, aux, frames, depth)) {
            return e;
        }
        if (e->hash == 0) {
            if ((t->used + 1) * 4 > t->capacity * 3) {
                return NULL;
            }
            e->hash = h;
            e->key = key;
            e->aux = aux;
            e->depth = depth;
            memcpy(e->frames, frames, (size_t)depth * sizeof *frames);
            t->used++;
            return e;
        }
    }
    return NULL;
}

int name_table_init(name_table *t, size_t max_count, size_t arena_bytes) {
    memset(t, 0, sizeof *t);
    t->capacity = round_up_pow2(max_count * 2);
    t->max_count = max_count;
    t->arena_cap = arena_bytes;
    t->slots = calloc(t->capacity, sizeof *t->slots);
    t->offsets = calloc(max_count, sizeof *t->offsets);
    t->arena = malloc(arena_bytes);
    if (t->slots == NULL || t->offsets == NULL || t->arena == NULL) {
        name_table_free(t);
        return -1;
    }
    return 0;
}

void name_table_free(name_table *t) {
    free(t->slots);
    free(t->offsets);
    free(t->arena);
    memset(t, 0, sizeof *t);
}

int32_t name_table_intern(name_table *t, const char *s) {
    uint64_t h = 0xcbf29ce484222325ULL;
    size_t len = strlen(s);
    for (size_t i = 0; i < len; i++) {
        h = (h ^ (unsigned char)s[i]) * 0x100000001b3ULL;
    }
    size_t mask = t->capacity - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
        int32_t slot = t->slots[i];
        if (slot == 0) {
            if (t->count == t->max_count || t->arena_cap - t->arena_len < len + 1) {
                return -1;
            }
            memcpy(t->arena + t->arena_len, s, len + 1);
            t->offsets[t->count] = (uint32_t)t->arena_len;
            t->arena_len += len + 1;
            t->slots[i] = (int32_t)(t->count + 1);
            return (int32_t)t->count++;
        }
        if (strcmp(t->arena + t->offsets[slot - 1], s) == 0) {
            return slot - 1;
        }
    }
}

const char *name_table_get(const name_table *t, int32_t index) {
    return index < 0 || (size_t)index >= t->count ? NULL : t->arena + t->offsets[index];
}

/* e^-x for x >= 0 without libm: halve x until small, a Taylor series, then square back up. */
static double exp_neg(double x) {
    int halvings = 0;
    while (x > 0.5 && halvings < 64) {
        x /= 2;
        halvings++;
    }
    double term = 1, sum = 1;
    for (int n = 1; n < 12; n++) {
        term *= -x / n;
        sum += term;
    }
    while (halvings-- > 0) {
        sum *= sum;
    }
    return sum;
}

uint64_t sample_weight(uint64_t size, uint64_t interval) {
    if (interval == 0 || size == 0) {
        return size;
    }
    double x = (double)size / (double)interval;
    if (x > 40) {
        return size;
    }
    double p = 1 - exp_neg(x);
    if (x < 1e-6) {
        return interval; /* 1 - e^-x ~ x: the sample stands for one interval */
    }
    return (uint64_t)((double)size / p + 0.5);
}
