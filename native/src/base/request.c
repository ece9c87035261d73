#include "request.h"

#include <string.h>

#include "mutf8.h"

typedef struct {
    const char *s;
    size_t len;
    size_t pos;
    request *req;
    const char *error;
} parser;

static int fail(parser *p, const char *message) {
    if (p->error == NULL) {
        p->error = message;
    }
    return -1;
}

static void skip_space(parser *p) {
    while (p->pos < p->len) {
        char c = p->s[p->pos];
        if (c != ' ' && c != '\t' && c != '\r' && c != '\n') {
            break;
        }
        p->pos++;
    }
}

static int expect(parser *p, char c) {
    skip_space(p);
    if (p->pos >= p->len || p->s[p->pos] != c) {
        return fail(p, "malformed JSON");
    }
    p->pos++;
    return 0;
}

static int peek(parser *p) {
    skip_space(p);
    return p->pos < p->len ? (unsigned char)p->s[p->pos] : -1;
}

static int hex4(parser *p, uint32_t *out) {
    uint32_t v = 0;
    if (p->pos + 4 > p->len) {
        return fail(p, "truncated \\u escape");
    }
    for (int i = 0; i < 4; i++) {
        char c = p->s[p->pos++];
        v <<= 4;
        if (c >= '0' && c <= '9') v |= (uint32_t)(c - '0');
        else if (c >= 'a' && c <= 'f') v |= (uint32_t)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') v |= (uint32_t)(c - 'A' + 10);
        else return fail(p, "bad \\u escape");
    }
    *out = v;
    return 0;
}

static int arena_put(parser *p, const unsigned char *bytes, size_t n) {
    request *r = p->req;
    if (r->arena_len + n > REQUEST_MAX_LINE) {
        return fail(p, "request too large");
    }
    memcpy(r->arena + r->arena_len, bytes, n);
    r->arena_len += n;
    return 0;
}

/* Parses a JSON string into the arena, NUL-terminated; stores its offset. */
static int parse_string(parser *p, size_t *offset) {
    if (expect(p, '"') != 0) {
        return -1;
    }
    *offset = p->req->arena_len;
    for (;;) {
        if (p->pos >= p->len) {
            return fail(p, "unterminated string");
        }
        unsigned char c = (unsigned char)p->s[p->pos++];
        if (c == '"') {
            break;
        }
        if (c < 0x20) {
            return fail(p, "control character in string");
        }
        if (c != '\\') {
            if (arena_put(p, &c, 1) != 0) return -1;
            continue;
        }
        if (p->pos >= p->len) {
            return fail(p, "unterminated string");
        }
        char e = p->s[p->pos++];
        unsigned char out = 0;
        switch (e) {
        case '"': out = '"'; break;
        case '\\': out = '\\'; break;
        case '/': out = '/'; break;
        case 'b': out = '\b'; break;
        case 'f': out = '\f'; break;
        case 'n': out = '\n'; break;
        case 'r': out = '\r'; break;
        case 't': out = '\t'; break;
        case 'u': {
            uint32_t cp;
            if (hex4(p, &cp) != 0) return -1;
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                uint32_t low;
                if (p->pos + 2 > p->len || p->s[p->pos] != '\\' || p->s[p->pos + 1] != 'u') {
                    return fail(p, "lone surrogate in string");
                }
                p->pos += 2;
                if (hex4(p, &low) != 0) return -1;
                if (low < 0xDC00 || low > 0xDFFF) {
                    return fail(p, "lone surrogate in string");
                }
                cp = 0x10000u + ((cp - 0xD800u) << 10) + (low - 0xDC00u);
            } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
                return fail(p, "lone surrogate in string");
            }
            if (cp == 0) {
                return fail(p, "NUL in string");
            }
            unsigned char bytes[4];
            if (arena_put(p, bytes, utf8_encode(cp, bytes)) != 0) return -1;
            continue;
        }
        default:
            return fail(p, "bad escape in string");
        }
        if (arena_put(p, &out, 1) != 0) return -1;
    }
    unsigned char nul = 0;
    return arena_put(p, &nul, 1);
}

static int parse_int(parser *p, int64_t *out) {
    skip_space(p);
    int negative = 0;
    uint64_t v = 0;
    size_t digits = 0;
    if (p->pos < p->len && p->s[p->pos] == '-') {
        negative = 1;
        p->pos++;
    }
    /* the magnitude of INT64_MIN is one more than INT64_MAX */
    uint64_t limit = negative ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    while (p->pos < p->len && p->s[p->pos] >= '0' && p->s[p->pos] <= '9') {
        uint64_t d = (uint64_t)(p->s[p->pos] - '0');
        if (v > (limit - d) / 10) {
            return fail(p, "number out of range");
        }
        v = v * 10 + d;
        p->pos++;
        digits++;
    }
    if (digits == 0) {
        return fail(p, "malformed number");
    }
    if (p->pos < p->len && (p->s[p->pos] == '.' || p->s[p->pos] == 'e' || p->s[p->pos] == 'E')) {
        return fail(p, "only integers are accepted");
    }
    *out = !negative ? (int64_t)v : v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v;
    return 0;
}

static int parse_literal(parser *p, const char *word) {
    size_t n = strlen(word);
    skip_space(p);
    if (p->pos + n > p->len || memcmp(p->s + p->pos, word, n) != 0) {
        return fail(p, "malformed JSON");
    }
    p->pos += n;
    return 0;
}

static int add_item(parser *p, int64_t value) {
    request *r = p->req;
    if (r->item_count >= REQUEST_MAX_ITEMS) {
        return fail(p, "too many array items");
    }
    r->items[r->item_count++] = value;
    return 0;
}

static int parse_array(parser *p, request_field *f) {
    if (expect(p, '[') != 0) return -1;
    f->first_item = p->req->item_count;
    f->item_count = 0;
    f->kind = VALUE_INT_ARRAY;
    if (peek(p) == ']') {
        p->pos++;
        return 0;
    }
    for (;;) {
        int c = peek(p);
        int64_t value;
        if (c == '"') {
            size_t offset;
            if (f->item_count > 0 && f->kind != VALUE_STRING_ARRAY) return fail(p, "mixed array");
            f->kind = VALUE_STRING_ARRAY;
            if (parse_string(p, &offset) != 0) return -1;
            value = (int64_t)offset;
        } else {
            if (f->kind != VALUE_INT_ARRAY) return fail(p, "mixed array");
            if (parse_int(p, &value) != 0) return -1;
        }
        if (add_item(p, value) != 0) return -1;
        f->item_count++;
        c = peek(p);
        if (c == ',') {
            p->pos++;
        } else if (c == ']') {
            p->pos++;
            return 0;
        } else {
            return fail(p, "malformed array");
        }
    }
}

static int parse_value(parser *p, request_field *f) {
    int c = peek(p);
    switch (c) {
    case '"':
        f->kind = VALUE_STRING;
        return parse_string(p, &f->offset);
    case '[':
        return parse_array(p, f);
    case 't':
        f->kind = VALUE_BOOL;
        f->number = 1;
        return parse_literal(p, "true");
    case 'f':
        f->kind = VALUE_BOOL;
        f->number = 0;
        return parse_literal(p, "false");
    case 'n':
        f->kind = VALUE_NULL;
        return parse_literal(p, "null");
    default:
        f->kind = VALUE_INT;
        return parse_int(p, &f->number);
    }
}

static int parse_field(parser *p) {
    request *r = p->req;
    size_t key_offset;
    if (r->field_count >= REQUEST_MAX_FIELDS) {
        return fail(p, "too many fields");
    }
    if (parse_string(p, &key_offset) != 0) return -1;
    const char *key = r->arena + key_offset;
    if (strlen(key) >= REQUEST_MAX_KEY) {
        return fail(p, "key too long");
    }
    if (request_get(r, key) != NULL) {
        return fail(p, "duplicate key");
    }
    request_field *f = &r->fields[r->field_count];
    memset(f, 0, sizeof *f);
    strcpy(f->key, key);
    r->arena_len = key_offset; /* the key lives in the field now */
    if (expect(p, ':') != 0) return -1;
    if (parse_value(p, f) != 0) return -1;
    r->field_count++;
    return 0;
}

int request_parse(const char *line, size_t len, request *req, const char **error) {
    parser p = { line, len, 0, req, NULL };
    req->field_count = 0;
    req->arena_len = 0;
    req->item_count = 0;
    if (len > REQUEST_MAX_LINE) {
        *error = "request too large";
        return -1;
    }
    if (expect(&p, '{') != 0) goto failed;
    if (peek(&p) == '}') {
        p.pos++;
    } else {
        for (;;) {
            if (parse_field(&p) != 0) goto failed;
            int c = peek(&p);
            if (c == ',') {
                p.pos++;
            } else if (c == '}') {
                p.pos++;
                break;
            } else {
                fail(&p, "malformed object");
                goto failed;
            }
        }
    }
    if (peek(&p) != -1) {
        fail(&p, "trailing data after object");
        goto failed;
    }
    return 0;
failed:
    *error = p.error;
    req->field_count = 0;
    return -1;
}

const request_field *request_get(const request *req, const char *key) {
    for (size_t i = 0; i < req->field_count; i++) {
        if (strcmp(req->fields[i].key, key) == 0) {
            return &req->fields[i];
        }
    }
    return NULL;
}

int64_t request_int(const request *req, const char *key, int64_t fallback) {
    const request_field *f = request_get(req, key);
    return f != NULL && f->kind == VALUE_INT ? f->number : fallback;
}

int request_bool(const request *req, const char *key, int fallback) {
    const request_field *f = request_get(req, key);
    return f != NULL && f->kind == VALUE_BOOL ? (int)f->number : fallback;
}

const char *request_string(const request *req, const char *key) {
    const request_field *f = request_get(req, key);
    return f != NULL && f->kind == VALUE_STRING ? req->arena + f->offset : NULL;
}

const int64_t *request_ints(const request *req, const char *key, size_t *count) {
    const request_field *f = request_get(req, key);
    if (f == NULL || f->kind != VALUE_INT_ARRAY || f->item_count == 0) {
        *count = 0;
        return NULL;
    }
    *count = f->item_count;
    return &req->items[f->first_item];
}

size_t request_string_count(const request *req, const char *key) {
    const request_field *f = request_get(req, key);
    return f != NULL && f->kind == VALUE_STRING_ARRAY ? f->item_count : 0;
}

const char *request_string_at(const request *req, const char *key, size_t i) {
    const request_field *f = request_get(req, key);
    if (f == NULL || f->kind != VALUE_STRING_ARRAY || i >= f->item_count) {
        return NULL;
    }
    return req->arena + req->items[f->first_item + i];
}
