#include "stack_tree.h"

#include <string.h>

void stack_tree_init(stack_tree *t) {
    key_index_init(&t->nodes, sizeof(stack_node));
}

void stack_tree_free(stack_tree *t) {
    key_index_free(&t->nodes);
}

int32_t stack_tree_add(stack_tree *t, int32_t parent, int32_t method, int32_t line) {
    stack_node node = { parent, method, line };
    int32_t index = key_index_of(&t->nodes, &node);
    return index < 0 ? STACK_TREE_FULL : index;
}

size_t stack_tree_count(const stack_tree *t) {
    return t->nodes.count;
}

stack_node stack_tree_node(const stack_tree *t, size_t i) {
    stack_node node;
    memcpy(&node, key_index_key(&t->nodes, i), sizeof node);
    return node;
}

void stack_tree_write(json_writer *w, const stack_tree *t, size_t first) {
    json_begin_array(w);
    for (size_t i = first; i < stack_tree_count(t); i++) {
        stack_node node = stack_tree_node(t, i);
        char text[3 * 24 + 8]; /* json_format_int needs 24 bytes of room each */
        size_t n = 0;
        text[n++] = '[';
        n += json_format_int(node.parent, text + n);
        text[n++] = ',';
        n += json_format_int(node.method, text + n);
        text[n++] = ',';
        n += json_format_int(node.line, text + n);
        text[n++] = ']';
        json_fragment(w, text, n);
    }
    json_end_array(w);
}
