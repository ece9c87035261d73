#include "base64.h"

static const char ALPHABET[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

void base64_write_json(json_writer *w, const uint8_t *bytes, size_t len) {
    char chunk[1024];
    size_t used = 0;
    json_fragment(w, "\"", 1);
    for (size_t i = 0; i < len; i += 3) {
        uint32_t n = (uint32_t)bytes[i] << 16;
        size_t left = len - i;
        if (left > 1) {
            n |= (uint32_t)bytes[i + 1] << 8;
        }
        if (left > 2) {
            n |= bytes[i + 2];
        }
        chunk[used++] = ALPHABET[(n >> 18) & 63];
        chunk[used++] = ALPHABET[(n >> 12) & 63];
        chunk[used++] = left > 1 ? ALPHABET[(n >> 6) & 63] : '=';
        chunk[used++] = left > 2 ? ALPHABET[n & 63] : '=';
        if (used > sizeof chunk - 4) {
            json_raw_bytes(w, chunk, used);
            used = 0;
        }
    }
    json_raw_bytes(w, chunk, used);
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
