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

/* Seconds with a fraction of at most 9 digits, as nanoseconds ("0.0001586" is 158600); 0 when there is none. */
static int seconds(cursor *c, int64_t *nanos) {
    int64_t whole;
    if (!number(c, &whole) || whole > 1000000000 || !take(c, ".")) {
        return 0;
    }
    int64_t fraction = 0;
    int digits = 0;
    while (c->at < c->end && *c->at >= '0' && *c->at <= '9' && digits < 9) {
        fraction = fraction * 10 + (*c->at++ - '0');
        digits++;
    }
    if (digits == 0 || (c->at < c->end && *c->at >= '0' && *c->at <= '9')) {
        return 0;
    }
    for (; digits < 9; digits++) {
        fraction *= 10;
    }
    *nanos = whole * 1000000000 + fraction;
    return 1;
}

/* JDK 11: "Entering safepoint region: <operation>" */
static log_line_kind entering(cursor *c, log_line *out) {
    size_t n = (size_t)(c->end - c->at);
    if (n == 0 || n >= sizeof out->operation) {
        return LOG_LINE_UNREAD;
    }
    memcpy(out->operation, c->at, n);
    out->operation[n] = '\0';
    return LOG_LINE_ENTERING;
}

/* JDK 11: "Total time for which application threads were stopped: <s> seconds, Stopping threads took: <s> seconds" */
static log_line_kind stopped(cursor *c, log_line *out) {
    out->since_last_nanos = out->cleanup_nanos = out->at_safepoint_nanos = out->leaving_nanos = out->threads_runnable = -1;
    if (seconds(c, &out->total_nanos) && take(c, " seconds, Stopping threads took: ") && seconds(c, &out->reaching_nanos)
            && take(c, " seconds") && c->at == c->end) {
        return LOG_LINE_STOPPED;
    }
    return LOG_LINE_UNREAD;
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
    /* generational ZGC names the generation first: "Y: " young (of a major collection), "y: " minor, "O: " old */
    (void)(take(&text, "Y: ") || take(&text, "y: ") || take(&text, "O: "));
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
    if (take(&c, "Entering safepoint region: ")) {
        return entering(&c, out);
    }
    if (take(&c, "Total time for which application threads were stopped: ")) {
        return stopped(&c, out);
    }
    if (take(&c, "Application time: ")) {
        return seconds(&c, &out->since_last_nanos) && take(&c, " seconds") && c.at == c.end ? LOG_LINE_SINCE_LAST : LOG_LINE_UNREAD;
    }
    if (take(&c, "Leaving safepoint region") && c.at == c.end) {
        return LOG_LINE_OTHER; /* the time between it and Entering is not a figure JDK 11 logs: not made up from the decorations */
    }
    if (memmem(c.at, (size_t)(c.end - c.at), "safepoint", 9) != NULL) {
        return LOG_LINE_UNREAD;
    }
    return LOG_LINE_OTHER;
}
