/* The frames of one answer as a tree grown from the bottom of the stacks: a node is a method at a
 * line called from its parent node, and a thread's stack is its top node. Threads that share
 * their callers share those nodes, as the thousands of threads of a pool, parked at the same
 * place, share all of them: the answer carries each distinct node once. Allocated and freed per
 * answer. */
#ifndef JVMTICLI_STACK_TREE_H
#define JVMTICLI_STACK_TREE_H

#include <stddef.h>
#include <stdint.h>

#include "json.h"
#include "key_index.h"

/* A node's parent when it is a stack's bottom frame, and a stack without frames. */
#define STACK_TREE_ROOT (-1)
/* What stack_tree_add returns when out of memory. */
#define STACK_TREE_FULL (-2)

typedef struct {
    int32_t parent;  /* node index, or STACK_TREE_ROOT */
    int32_t method;  /* index into the answer's method table, -1 when it could not be indexed */
    int32_t line;    /* source line; -1 unknown, -2 native */
} stack_node;

typedef struct {
    key_index nodes; /* keys: stack_node */
} stack_tree;

void stack_tree_init(stack_tree *t);
void stack_tree_free(stack_tree *t);
/* The index of the node (parent, method, line), adding it if new; STACK_TREE_FULL when out of memory. */
int32_t stack_tree_add(stack_tree *t, int32_t parent, int32_t method, int32_t line);
size_t stack_tree_count(const stack_tree *t);
stack_node stack_tree_node(const stack_tree *t, size_t i);
/* The nodes from index first on as [[parent, method, line], ...], in index order (a parent before
 * its children). */
void stack_tree_write(json_writer *w, const stack_tree *t, size_t first);

#endif
