/* Samples per collapsed stack, as async-profiler dumps them ("frames COUNT" lines), kept to tell
 * what was sampled between two dumps: the samples a stack gained are its count in the later dump
 * less its count in the earlier one. Bounded: a stack that would pass STACK_COUNTS_MAX_BYTES (or
 * find no memory) is not stored, and its samples are counted as lost. Pure: no JVM. */
#ifndef JVMTICLI_STACK_COUNTS_H
#define JVMTICLI_STACK_COUNTS_H

#include <stddef.h>
#include <stdint.h>

#define STACK_COUNTS_MAX_BYTES (8u * 1024 * 1024)

typedef struct {
    char *stack;            /* the line without its count, not terminated */
    size_t len;
    uint64_t hash;
    uint64_t samples;
} stack_count;

typedef struct {
    stack_count *items;
    size_t count;
    size_t capacity;
    size_t bytes;           /* of the stacks held */
    uint64_t lost;          /* samples of stacks not stored */
} stack_counts;

void stack_counts_init(stack_counts *t);
/* Frees every stack; the table is empty and usable again. */
void stack_counts_clear(stack_counts *t);
/* Adds a line "frames COUNT" to its stack's samples; a line without a count is ignored. */
void stack_counts_add_line(stack_counts *t, const char *line, size_t len);
/* The samples of stack (without its count) in t; 0 when not there. */
uint64_t stack_counts_of(const stack_counts *t, const char *stack, size_t len);
/* Adds to into what each stack of later gained over earlier. */
void stack_counts_add_gain(stack_counts *into, const stack_counts *earlier, const stack_counts *later);

#endif
