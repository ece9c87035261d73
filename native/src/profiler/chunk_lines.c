#include "chunk_lines.h"

#include <string.h>

void chunk_lines_init(chunk_lines *c, char *buf, size_t cap, chunk_line_fn on_line, void *ctx) {
    c->buf = buf;
    c->cap = cap;
    c->len = 0;
    c->overlong = 0;
    c->dropped = 0;
    c->on_line = on_line;
    c->ctx = ctx;
}

static void end_line(chunk_lines *c) {
    if (c->overlong) {
        c->dropped++;
    } else if (c->len > 0) {
        c->on_line(c->ctx, c->buf, c->len);
    }
    c->len = 0;
    c->overlong = 0;
}

void chunk_lines_feed(chunk_lines *c, const char *data, size_t len) {
    while (len > 0) {
        const char *newline = memchr(data, '\n', len);
        size_t part = newline == NULL ? len : (size_t)(newline - data);
        if (!c->overlong && part <= c->cap - c->len) {
            memcpy(c->buf + c->len, data, part);
            c->len += part;
        } else {
            c->overlong = 1;
        }
        if (newline == NULL) {
            return;
        }
        end_line(c);
        data += part + 1;
        len -= part + 1;
    }
}

void chunk_lines_finish(chunk_lines *c) {
    if (c->len > 0 || c->overlong) {
        end_line(c);
    }
}
