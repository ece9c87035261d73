/* Cuts a stream that arrives in chunks of any size into whole lines, each handed on without its
 * newline. A line longer than the buffer is dropped whole and counted, never split: a part of a
 * collapsed stack would be a different, false stack. Pure: the caller owns the buffer. */
#ifndef JVMTICLI_CHUNK_LINES_H
#define JVMTICLI_CHUNK_LINES_H

#include <stddef.h>
#include <stdint.h>

typedef void (*chunk_line_fn)(void *ctx, const char *line, size_t len);

typedef struct {
    char *buf;
    size_t cap;
    size_t len;
    int overlong;           /* the line being read did not fit: skip to its newline */
    uint64_t dropped;       /* lines dropped for their length */
    chunk_line_fn on_line;
    void *ctx;
} chunk_lines;

void chunk_lines_init(chunk_lines *c, char *buf, size_t cap, chunk_line_fn on_line, void *ctx);
void chunk_lines_feed(chunk_lines *c, const char *data, size_t len);
/* The end of the stream: a last line without a newline is handed on too. */
void chunk_lines_finish(chunk_lines *c);

#endif
