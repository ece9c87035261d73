/* SHA-256 (FIPS 180-4), to check a library's content against the digest pinned at build time
 * before any of its code can run. Pure: no I/O, no allocation. */
#ifndef JVMTICLI_SHA256_H
#define JVMTICLI_SHA256_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint32_t state[8];
    uint64_t length;            /* bytes hashed so far */
    unsigned char block[64];
    size_t used;                /* bytes waiting in block */
} sha256;

void sha256_init(sha256 *h);
void sha256_update(sha256 *h, const void *data, size_t len);
/* The digest as 64 lowercase hex digits and a NUL. */
void sha256_hex(sha256 *h, char out[65]);

#endif
