#include "mutf8.h"

#include <string.h>

static int is_continuation(unsigned char b) {
    return (b & 0xC0) == 0x80;
}

/* Decodes one 1-, 2- or 3-byte unit (a UTF-16 code unit in modified UTF-8). */
static uint32_t next_unit(const unsigned char *s, size_t len, size_t *pos) {
    size_t i = *pos;
    unsigned char b0 = s[i];
    if (b0 < 0x80) {
        *pos = i + 1;
        return b0;
    }
    if ((b0 & 0xE0) == 0xC0 && i + 1 < len && is_continuation(s[i + 1])) {
        *pos = i + 2;
        return ((uint32_t)(b0 & 0x1F) << 6) | (s[i + 1] & 0x3F);
    }
    if ((b0 & 0xF0) == 0xE0 && i + 2 < len && is_continuation(s[i + 1]) && is_continuation(s[i + 2])) {
        *pos = i + 3;
        return ((uint32_t)(b0 & 0x0F) << 12) | ((uint32_t)(s[i + 1] & 0x3F) << 6) | (s[i + 2] & 0x3F);
    }
    *pos = i + 1;
    return MUTF8_REPLACEMENT;
}

uint32_t mutf8_next(const unsigned char *s, size_t len, size_t *pos) {
    uint32_t unit = next_unit(s, len, pos);
    if (unit >= 0xD800 && unit <= 0xDBFF) {
        size_t after_high = *pos;
        if (after_high < len) {
            size_t probe = after_high;
            uint32_t low = next_unit(s, len, &probe);
            if (low >= 0xDC00 && low <= 0xDFFF) {
                *pos = probe;
                return 0x10000u + ((unit - 0xD800u) << 10) + (low - 0xDC00u);
            }
        }
        return MUTF8_REPLACEMENT;
    }
    if (unit >= 0xDC00 && unit <= 0xDFFF) {
        return MUTF8_REPLACEMENT;
    }
    return unit;
}

size_t utf8_encode(uint32_t cp, unsigned char out[4]) {
    if (cp < 0x80) {
        out[0] = (unsigned char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (unsigned char)(0xC0 | (cp >> 6));
        out[1] = (unsigned char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (unsigned char)(0xE0 | (cp >> 12));
        out[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (unsigned char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (unsigned char)(0xF0 | (cp >> 18));
    out[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (unsigned char)(0x80 | (cp & 0x3F));
    return 4;
}

size_t mutf8_to_utf8(const char *in, char *out, size_t cap) {
    const unsigned char *s = (const unsigned char *)in;
    size_t len = strlen(in);
    size_t pos = 0;
    size_t needed = 0;
    size_t written = 0;
    int truncated = 0;
    while (pos < len) {
        unsigned char buf[4];
        size_t n = utf8_encode(mutf8_next(s, len, &pos), buf);
        if (!truncated && cap > 0 && written + n < cap) {
            memcpy(out + written, buf, n);
            written += n;
        } else {
            truncated = 1;
        }
        needed += n;
    }
    if (cap > 0) {
        out[written] = '\0';
    }
    return needed;
}
