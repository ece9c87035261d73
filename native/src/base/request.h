/* The request parser: one line of JSON, a flat object whose values are null, booleans,
 * integers, strings, or arrays of integers or strings. Everything is bounded and copied
 * into the request itself; nothing is allocated. */
#ifndef JVMTICLI_REQUEST_H
#define JVMTICLI_REQUEST_H

#include <stddef.h>
#include <stdint.h>

#define REQUEST_MAX_LINE 65536
#define REQUEST_MAX_FIELDS 24
#define REQUEST_MAX_KEY 32
#define REQUEST_MAX_ITEMS 8192

typedef enum { VALUE_NULL, VALUE_BOOL, VALUE_INT, VALUE_STRING, VALUE_INT_ARRAY, VALUE_STRING_ARRAY } value_kind;

typedef struct {
    char key[REQUEST_MAX_KEY];
    value_kind kind;
    int64_t number;     /* VALUE_BOOL (0/1) and VALUE_INT */
    size_t offset;      /* VALUE_STRING: into arena */
    size_t first_item;  /* arrays: into items */
    size_t item_count;
} request_field;

typedef struct {
    request_field fields[REQUEST_MAX_FIELDS];
    size_t field_count;
    char arena[REQUEST_MAX_LINE + 1];
    size_t arena_len;
    int64_t items[REQUEST_MAX_ITEMS]; /* integers, or arena offsets of strings */
    size_t item_count;
} request;

/* Parses len bytes (no trailing newline needed). Returns 0, or -1 with *error set to a
 * static message. */
int request_parse(const char *line, size_t len, request *req, const char **error);

const request_field *request_get(const request *req, const char *key);
int64_t request_int(const request *req, const char *key, int64_t fallback);
int request_bool(const request *req, const char *key, int fallback);
/* NULL when absent or not a string. */
const char *request_string(const request *req, const char *key);
/* Integer array items; count 0 and NULL when absent or of another type. */
const int64_t *request_ints(const request *req, const char *key, size_t *count);
/* The i-th string of a string array (i < count from request_string_count). */
size_t request_string_count(const request *req, const char *key);
const char *request_string_at(const request *req, const char *key, size_t i);

#endif
