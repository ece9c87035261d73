/* Standard base64 (RFC 4648, with padding), for binary data carried in JSON strings: class files
 * between the CLI and the agent (trace), a recording to the CLI (memory --native). */
#ifndef JVMTICLI_BASE64_H
#define JVMTICLI_BASE64_H

#include <stddef.h>
#include <stdint.h>

#include "json.h"

/* The bytes base64 makes of n bytes. */
size_t base64_encoded_size(size_t n);

/* Encodes n bytes of in into out (base64_encoded_size(n) bytes, no NUL); the length written. */
size_t base64_encode(const unsigned char *in, size_t n, char *out);

/* Writes len bytes as one JSON string of their base64 form. */
void base64_write_json(json_writer *w, const uint8_t *bytes, size_t len);

/* Decodes text (its length a multiple of 4) into out (room for cap bytes). The decoded length, or
 * -1 when text is not base64 or does not fit. */
long base64_decode(const char *text, size_t text_len, uint8_t *out, size_t cap);

#endif
