#include "base64.h"

static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

size_t base64_encoded_size(size_t n) {
    return (n + 2) / 3 * 4;
}

size_t base64_encode(const unsigned char *in, size_t n, char *out) {
    size_t o = 0;
    size_t i = 0;
    for (; i + 2 < n; i += 3) {
        unsigned v = (unsigned)in[i] << 16 | (unsigned)in[i + 1] << 8 | in[i + 2];
        out[o++] = alphabet[v >> 18 & 63];
        out[o++] = alphabet[v >> 12 & 63];
        out[o++] = alphabet[v >> 6 & 63];
        out[o++] = alphabet[v & 63];
    }
    if (i < n) {
        unsigned v = (unsigned)in[i] << 16 | (i + 1 < n ? (unsigned)in[i + 1] << 8 : 0);
        out[o++] = alphabet[v >> 18 & 63];
        out[o++] = alphabet[v >> 12 & 63];
        out[o++] = i + 1 < n ? alphabet[v >> 6 & 63] : '=';
        out[o++] = '=';
    }
    return o;
}

void base64_write_json(json_writer *w, const uint8_t *bytes, size_t len) {
    char chunk[1024]; /* a multiple of 4: whole groups of 3 bytes */
    size_t per_chunk = sizeof chunk / 4 * 3;
    json_fragment(w, "\"", 1);
    for (size_t i = 0; i < len; i += per_chunk) {
        size_t n = len - i < per_chunk ? len - i : per_chunk;
        json_raw_bytes(w, chunk, base64_encode(bytes + i, n, chunk));
    }
    json_raw_bytes(w, "\"", 1);
}

static int value_of(char c) {
    if (c >= 'A' && c <= 'Z') {
        return c - 'A';
    }
    if (c >= 'a' && c <= 'z') {
        return c - 'a' + 26;
    }
    if (c >= '0' && c <= '9') {
        return c - '0' + 52;
    }
    return c == '+' ? 62 : c == '/' ? 63 : -1;
}

long base64_decode(const char *text, size_t text_len, uint8_t *out, size_t cap) {
    if (text_len % 4 != 0) {
        return -1;
    }
    size_t n = 0;
    for (size_t i = 0; i < text_len; i += 4) {
        int v[4];
        int pad = 0;
        for (int k = 0; k < 4; k++) {
            char c = text[i + k];
            if (c == '=' && i + 4 == text_len && k >= 2) {
                v[k] = 0;
                pad++;
            } else if (pad > 0 || (v[k] = value_of(c)) < 0) {
                return -1;
            }
        }
        uint32_t bits = (uint32_t)v[0] << 18 | (uint32_t)v[1] << 12 | (uint32_t)v[2] << 6 | (uint32_t)v[3];
        size_t bytes = (size_t)(3 - pad);
        if (cap - n < bytes) {
            return -1;
        }
        out[n++] = (uint8_t)(bits >> 16);
        if (bytes > 1) {
            out[n++] = (uint8_t)(bits >> 8);
        }
        if (bytes > 2) {
            out[n++] = (uint8_t)bits;
        }
    }
    return (long)n;
}
