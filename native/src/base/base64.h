/* Standard base64 (RFC 4648, with padding), for binary data carried in a JSON string. */
#ifndef JVMTICLI_BASE64_H
#define JVMTICLI_BASE64_H

#include <stddef.h>

/* The bytes base64 makes of n bytes. */
size_t base64_encoded_size(size_t n);

/* Encodes n bytes of in into out (base64_encoded_size(n) bytes, no NUL); the length written. */
size_t base64_encode(const unsigned char *in, size_t n, char *out);

#endif
