/* Modified UTF-8 (what JVMTI and JNI hand out) decoded to Unicode code points. */
#ifndef JVMTICLI_MUTF8_H
#define JVMTICLI_MUTF8_H

#include <stddef.h>
#include <stdint.h>

#define MUTF8_REPLACEMENT 0xFFFDu

/* Decodes the code point starting at s[*pos] (pos < len) and advances *pos.
 * Surrogate pairs become one supplementary code point, C0 80 becomes U+0000,
 * anything malformed becomes U+FFFD. */
uint32_t mutf8_next(const unsigned char *s, size_t len, size_t *pos);

/* Writes code point cp as standard UTF-8 into out (room for 4 bytes); returns the byte count. */
size_t utf8_encode(uint32_t cp, unsigned char out[4]);

/* Converts a NUL-terminated modified UTF-8 string into standard UTF-8 in out (capacity cap,
 * always NUL-terminated when cap > 0, truncated at a code point boundary).
 * Returns the length the full conversion needs, excluding the terminator. */
size_t mutf8_to_utf8(const char *in, char *out, size_t cap);

#endif
