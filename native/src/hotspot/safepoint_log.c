#include "safepoint_log.h"

#include <stdio.h>
#include <string.h>

typedef struct {
    const char *at;
    const char *end;
} cursor;

static int take(cursor *c, const char *text) {
    size_t n = strlen(text);
    if ((size_t)(c->end - c->at) < n || memcmp(c->at, text, n) != 0) {
        return 0;
    }
    c->at += n;
    return 1;
}

/* A decimal number of at most 18 digits (no overflow); 0 when there is none. */
static int number(cursor *c, int64_t *value) {
    int64_t v = 0;
    int digits = 0;
    while (c->at < c->end && *c->at >= '0' && *c->at <= '9' && digits < 18) {
        v = v * 10 + (*c->at++ - '0');
        digits++;
    }
    if (digits == 0 || (c->at < c->end && *c->at >= '0' && *c->at <= '9')) {
        return 0;
    }
    *value = v;
    return 1;
}

/* The number after ", <label>: " anywhere in c (the JDKs differ in which figures they log and
 * where), followed by unit; -1 when the line has no such field. */
static int64_t labelled(const cursor *c, const char *label, const char *unit) {
    char key[48];
    size_t n = (size_t)snprintf(key, sizeof key, ", %s: ", label);
    const char *found = memmem(c->at, (size_t)(c->end - c->at), key, n);
    if (found == NULL) {
        return -1;
    }
    cursor value = { found + n, c->end };
    int64_t v;
    return number(&value, &v) && take(&value, unit) ? v : -1;
}

static log_line_kind safepoint(cursor *c, log_line *out) {
    const char *quote = memchr(c->at, '"', (size_t)(c->end - c->at));
    if (quote == NULL || (size_t)(quote - c->at) >= sizeof out->operation) {
        return LOG_LINE_OTHER;
    }
    memcpy(out->operation, c->at, (size_t)(quote - c->at));
    out->operation[quote - c->at] = '\0';
    c->at = quote + 1;
    out->since_last_nanos = labelled(c, "Time since last", " ns");
    out->reaching_nanos = labelled(c, "Reaching safepoint", " ns");
    out->cleanup_nanos = labelled(c, "Cleanup", " ns");
    out->at_safepoint_nanos = labelled(c, "At safepoint", " ns");
    out->leaving_nanos = labelled(c, "Leaving safepoint", " ns");
    out->total_nanos = labelled(c, "Total", " ns");
    out->threads_runnable = labelled(c, "Threads", " runnable");
    if (out->reaching_nanos < 0 || out->at_safepoint_nanos < 0 || out->total_nanos < 0) {
        return LOG_LINE_OTHER;
    }
    return LOG_LINE_SAFEPOINT;
}

static log_line_kind gc_pause(cursor *c, log_line *out) {
    if (!(number(c, &out->gc_id) && take(c, ") "))) {
        return LOG_LINE_OTHER;
    }
    cursor text = *c;
    if (!take(&text, "Pause ")) {
        return LOG_LINE_OTHER;
    }
    size_t n = (size_t)(c->end - c->at);
    if (n >= sizeof out->gc) {
        n = sizeof out->gc - 1;
    }
    memcpy(out->gc, c->at, n);
    out->gc[n] = '\0';
    return LOG_LINE_GC_PAUSE;
}

log_line_kind safepoint_log_parse(const char *line, size_t len, log_line *out) {
    cursor c = { line, line + len };
    memset(out, 0, sizeof *out);
    if (!(take(&c, "[") && number(&c, &out->millis) && take(&c, "ms][") && number(&c, &out->uptime_nanos) && take(&c, "ns] "))) {
        return LOG_LINE_OTHER;
    }
    if (take(&c, "Safepoint \"")) {
        return safepoint(&c, out) == LOG_LINE_SAFEPOINT ? LOG_LINE_SAFEPOINT : LOG_LINE_UNREAD;
    }
    if (take(&c, "GC(")) {
        return gc_pause(&c, out);
    }
    cursor rest = c;
    if (memmem(c.at, (size_t)(c.end - c.at), "safepoint", 9) != NULL || take(&rest, "Total time for which application threads")
            || take(&rest, "Application time:")) {
        return LOG_LINE_UNREAD;
    }
    return LOG_LINE_OTHER;
}
