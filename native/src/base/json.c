#include "json.h"

#include <stdio.h>
#include <string.h>

#include "mutf8.h"

void json_init(json_writer *w, json_sink sink, void *ctx) {
    w->sink = sink;
    w->sink_ctx = ctx;
    w->len = 0;
    w->failed = 0;
    w->depth = 0;
    w->has_items[0] = 0;
    w->after_key = 0;
}

int json_flush(json_writer *w) {
    if (!w->failed && w->len > 0 && w->sink(w->sink_ctx, w->buf, w->len) != 0) {
        w->failed = 1;
    }
    w->len = 0;
    return w->failed ? -1 : 0;
}

static void put(json_writer *w, const char *data, size_t n) {
    if (n < JSON_BUFFER_SIZE - w->len) { /* most writes: room to spare, nothing to flush */
        memcpy(w->buf + w->len, data, n);
        w->len += n;
        return;
    }
    while (n > 0 && !w->failed) {
        size_t room = JSON_BUFFER_SIZE - w->len;
        size_t chunk = n < room ? n : room;
        memcpy(w->buf + w->len, data, chunk);
        w->len += chunk;
        data += chunk;
        n -= chunk;
        if (w->len == JSON_BUFFER_SIZE) {
            json_flush(w);
        }
    }
}

static void put_char(json_writer *w, char c) {
    if (w->len + 1 < JSON_BUFFER_SIZE) {
        w->buf[w->len++] = c;
        return;
    }
    put(w, &c, 1);
}

/* Emits the comma that separates this value from the previous one, if any. */
static void before_value(json_writer *w) {
    if (w->after_key) {
        w->after_key = 0;
        return;
    }
    if (w->has_items[w->depth]) {
        put_char(w, ',');
    }
    w->has_items[w->depth] = 1;
}

static void open_container(json_writer *w, char c) {
    before_value(w);
    put_char(w, c);
    if (w->depth + 1 < JSON_MAX_DEPTH) {
        w->depth++;
        w->has_items[w->depth] = 0;
    } else {
        w->failed = 1;
    }
}

static void close_container(json_writer *w, char c) {
    if (w->depth > 0) {
        w->depth--;
    }
    put_char(w, c);
}

void json_begin_object(json_writer *w) { open_container(w, '{'); }
void json_end_object(json_writer *w) { close_container(w, '}'); }
void json_begin_array(json_writer *w) { open_container(w, '['); }
void json_end_array(json_writer *w) { close_container(w, ']'); }

static void put_code_point(json_writer *w, uint32_t cp) {
    char esc[8];
    switch (cp) {
    case '"': put(w, "\\\"", 2); return;
    case '\\': put(w, "\\\\", 2); return;
    case '\n': put(w, "\\n", 2); return;
    case '\r': put(w, "\\r", 2); return;
    case '\t': put(w, "\\t", 2); return;
    default: break;
    }
    if (cp < 0x20 || cp == 0x7F) {
        snprintf(esc, sizeof esc, "\\u%04x", (unsigned)cp);
        put(w, esc, 6);
        return;
    }
    unsigned char bytes[4];
    size_t n = utf8_encode(cp, bytes);
    put(w, (const char *)bytes, n);
}

/* Decodes one standard UTF-8 code point; malformed or overlong input becomes U+FFFD. */
static uint32_t utf8_next(const unsigned char *s, size_t len, size_t *pos) {
    size_t i = *pos;
    unsigned char b0 = s[i];
    size_t need;
    uint32_t cp;
    uint32_t min;
    if (b0 < 0x80) {
        *pos = i + 1;
        return b0;
    } else if ((b0 & 0xE0) == 0xC0) {
        need = 1; cp = b0 & 0x1F; min = 0x80;
    } else if ((b0 & 0xF0) == 0xE0) {
        need = 2; cp = b0 & 0x0F; min = 0x800;
    } else if ((b0 & 0xF8) == 0xF0) {
        need = 3; cp = b0 & 0x07; min = 0x10000;
    } else {
        *pos = i + 1;
        return MUTF8_REPLACEMENT;
    }
    if (i + need >= len) {
        *pos = i + 1;
        return MUTF8_REPLACEMENT;
    }
    for (size_t k = 1; k <= need; k++) {
        if ((s[i + k] & 0xC0) != 0x80) {
            *pos = i + 1;
            return MUTF8_REPLACEMENT;
        }
        cp = (cp << 6) | (s[i + k] & 0x3F);
    }
    *pos = i + need + 1;
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
        return MUTF8_REPLACEMENT;
    }
    return cp;
}

void json_key(json_writer *w, const char *key) {
    json_cstring(w, key);
    put_char(w, ':');
    w->after_key = 1;
}

void json_key_mutf8(json_writer *w, const char *key) {
    json_mutf8(w, key);
    put_char(w, ':');
    w->after_key = 1;
}

/* Printable ASCII other than '"' and '\\' goes out as it is. */
static int plain(unsigned char c) {
    return c >= 0x20 && c < 0x7F && c != '"' && c != '\\';
}

/* Copies the run of plain bytes starting at *pos in one go; returns 1 if any. */
static int put_plain_run(json_writer *w, const unsigned char *s, size_t len, size_t *pos) {
    size_t end = *pos;
    while (end < len && plain(s[end])) {
        end++;
    }
    if (end == *pos) {
        return 0;
    }
    put(w, (const char *)s + *pos, end - *pos);
    *pos = end;
    return 1;
}

/* A string value: plain runs copied, the rest decoded code point by code point with next and
 * re-encoded escaped. */
static void put_string(json_writer *w, const char *text, size_t len,
                       uint32_t (*next)(const unsigned char *, size_t, size_t *)) {
    const unsigned char *s = (const unsigned char *)text;
    size_t pos = 0;
    before_value(w);
    put_char(w, '"');
    while (pos < len) {
        if (!put_plain_run(w, s, len, &pos)) {
            put_code_point(w, next(s, len, &pos));
        }
    }
    put_char(w, '"');
}

void json_string(json_writer *w, const char *utf8, size_t len) {
    put_string(w, utf8, len, utf8_next);
}

void json_cstring(json_writer *w, const char *utf8) {
    if (utf8 == NULL) {
        json_null(w);
        return;
    }
    json_string(w, utf8, strlen(utf8));
}

void json_mutf8(json_writer *w, const char *mutf8) {
    if (mutf8 == NULL) {
        json_null(w);
        return;
    }
    put_string(w, mutf8, strlen(mutf8), mutf8_next);
}

size_t json_format_int(int64_t value, char out[24]) {
    char digits[24];
    size_t n = 0;
    uint64_t magnitude = value < 0 ? (uint64_t)0 - (uint64_t)value : (uint64_t)value;
    do {
        digits[n++] = (char)('0' + magnitude % 10);
        magnitude /= 10;
    } while (magnitude > 0);
    size_t len = 0;
    if (value < 0) {
        out[len++] = '-';
    }
    while (n > 0) {
        out[len++] = digits[--n];
    }
    return len;
}

void json_int(json_writer *w, int64_t value) {
    char num[24];
    size_t n = json_format_int(value, num);
    before_value(w);
    put(w, num, n);
}

void json_bool(json_writer *w, int value) {
    before_value(w);
    if (value) {
        put(w, "true", 4);
    } else {
        put(w, "false", 5);
    }
}

void json_null(json_writer *w) {
    before_value(w);
    put(w, "null", 4);
}

void json_field_int(json_writer *w, const char *key, int64_t value) {
    json_key(w, key);
    json_int(w, value);
}

void json_field_bool(json_writer *w, const char *key, int value) {
    json_key(w, key);
    json_bool(w, value);
}

void json_field_null(json_writer *w, const char *key) {
    json_key(w, key);
    json_null(w);
}

void json_field_cstring(json_writer *w, const char *key, const char *utf8) {
    json_key(w, key);
    json_cstring(w, utf8);
}

void json_field_string(json_writer *w, const char *key, const char *utf8, size_t len) {
    json_key(w, key);
    json_string(w, utf8, len);
}

void json_field_mutf8(json_writer *w, const char *key, const char *mutf8) {
    json_key(w, key);
    json_mutf8(w, mutf8);
}

void json_begin_array_field(json_writer *w, const char *key) {
    json_key(w, key);
    json_begin_array(w);
}

void json_begin_object_field(json_writer *w, const char *key) {
    json_key(w, key);
    json_begin_object(w);
}

void json_raw(json_writer *w, const char *text) {
    put(w, text, strlen(text));
}

void json_fragment(json_writer *w, const char *bytes, size_t len) {
    before_value(w);
    put(w, bytes, len);
}

void json_raw_bytes(json_writer *w, const char *bytes, size_t len) {
    put(w, bytes, len);
}
