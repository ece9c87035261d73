/* A streaming JSON writer: a fixed buffer flushed to a sink as it fills, so an answer of any
 * size costs the agent a bounded amount of memory. Nesting and commas are tracked here. */
#ifndef JVMTICLI_JSON_H
#define JVMTICLI_JSON_H

#include <stddef.h>
#include <stdint.h>

#define JSON_BUFFER_SIZE 65536
#define JSON_MAX_DEPTH 32

/* Writes len bytes somewhere; returns 0 on success, -1 on failure. */
typedef int (*json_sink)(void *ctx, const char *data, size_t len);

typedef struct {
    json_sink sink;
    void *sink_ctx;
    char buf[JSON_BUFFER_SIZE];
    size_t len;
    int failed;
    int depth;
    unsigned char has_items[JSON_MAX_DEPTH];
    int after_key;
} json_writer;

void json_init(json_writer *w, json_sink sink, void *ctx);
void json_begin_object(json_writer *w);
void json_end_object(json_writer *w);
void json_begin_array(json_writer *w);
void json_end_array(json_writer *w);
void json_key(json_writer *w, const char *key);
/* a key given in modified UTF-8 (a JVMTI string) */
void json_key_mutf8(json_writer *w, const char *key);
/* value as a standard UTF-8 string of len bytes; malformed bytes become U+FFFD */
void json_string(json_writer *w, const char *utf8, size_t len);
void json_cstring(json_writer *w, const char *utf8);
/* value as a NUL-terminated modified UTF-8 string from JVMTI/JNI (NULL writes null) */
void json_mutf8(json_writer *w, const char *mutf8);
void json_int(json_writer *w, int64_t value);
void json_bool(json_writer *w, int value);
void json_null(json_writer *w);
/* A key and its value in one call: json_key, then the value writer of the same name. */
void json_field_int(json_writer *w, const char *key, int64_t value);
void json_field_bool(json_writer *w, const char *key, int value);
void json_field_null(json_writer *w, const char *key);
void json_field_cstring(json_writer *w, const char *key, const char *utf8);
void json_field_string(json_writer *w, const char *key, const char *utf8, size_t len);
void json_field_mutf8(json_writer *w, const char *key, const char *mutf8);
void json_begin_array_field(json_writer *w, const char *key);
void json_begin_object_field(json_writer *w, const char *key);
/* Writes raw bytes (a newline between messages, say). */
void json_raw(json_writer *w, const char *text);
/* Writes a value already encoded as JSON (or the start of one, finished with json_raw_bytes),
 * with the comma that separates it from the value before. */
void json_fragment(json_writer *w, const char *bytes, size_t len);
void json_raw_bytes(json_writer *w, const char *bytes, size_t len);
/* value in decimal into out (no NUL); returns the length */
size_t json_format_int(int64_t value, char out[24]);
/* Pushes everything buffered to the sink; returns 0, or -1 if any write failed. */
int json_flush(json_writer *w);

#endif
