#include "stack_tree.h"

#include <stdlib.h>
#include <string.h>

#define INITIAL_CAPACITY 1024

void stack_tree_init(stack_tree *t) {
    memset(t, 0, sizeof *t);
}

void stack_tree_free(stack_tree *t) {
    free(t->nodes);
    free(t->slots);
    memset(t, 0, sizeof *t);
}

static size_t home_of(int32_t parent, int32_t method, int32_t line, size_t capacity) {
    uint64_t key = ((uint64_t)(uint32_t)parent << 32) ^ ((uint64_t)(uint32_t)method << 16) ^ (uint32_t)line;
    return (size_t)((key * 0x9E3779B97F4A7C15ull) >> 17) & (capacity - 1);
}

/* Doubles the hash (and the node array with it); kept at most half full. */
static int grow(stack_tree *t) {
    size_t capacity = t->capacity == 0 ? INITIAL_CAPACITY : t->capacity * 2;
    if (capacity > (size_t)INT32_MAX) {
        return -1;
    }
    int32_t *slots = calloc(capacity, sizeof *slots);
    stack_node *nodes = realloc(t->nodes, capacity / 2 * sizeof *nodes);
    if (slots == NULL || nodes == NULL) {
        free(slots);
        if (nodes != NULL) {
            t->nodes = nodes;
        }
        return -1;
    }
    t->nodes = nodes;
    for (size_t i = 0; i < t->count; i++) {
        size_t at = home_of(nodes[i].parent, nodes[i].method, nodes[i].line, capacity);
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

int32_t stack_tree_add(stack_tree *t, int32_t parent, int32_t method, int32_t line) {
    if (t->count >= t->capacity / 2 && grow(t) != 0 && t->capacity == 0) {
        return STACK_TREE_FULL;
    }
    size_t mask = t->capacity - 1;
    for (size_t at = home_of(parent, method, line, t->capacity);; at = (at + 1) & mask) {
        int32_t slot = t->slots[at];
        if (slot == 0) {
            if (t->count >= t->capacity / 2) {
                return STACK_TREE_FULL; /* full and cannot grow: nodes already there still have their index */
            }
            t->nodes[t->count] = (stack_node) { parent, method, line };
            t->slots[at] = (int32_t)(t->count + 1);
            return (int32_t)t->count++;
        }
        const stack_node *n = &t->nodes[slot - 1];
        if (n->parent == parent && n->method == method && n->line == line) {
            return slot - 1;
        }
    }
}

void stack_tree_write(json_writer *w, const stack_tree *t) {
    json_begin_array(w);
    for (size_t i = 0; i < t->count; i++) {
        char node[3 * 24 + 8]; /* json_format_int needs 24 bytes of room each */
        size_t n = 0;
        node[n++] = '[';
        n += json_format_int(t->nodes[i].parent, node + n);
        node[n++] = ',';
        n += json_format_int(t->nodes[i].method, node + n);
        node[n++] = ',';
        n += json_format_int(t->nodes[i].line, node + n);
        node[n++] = ']';
        json_fragment(w, node, n);
    }
    json_end_array(w);
}
