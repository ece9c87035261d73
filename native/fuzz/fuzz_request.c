/* libFuzzer harness for what the agent does with bytes a client sends: the request parser,
 * every accessor a command uses on the parsed request, and the JSON writer's string paths
 * (standard UTF-8 from requests, modified UTF-8 from the JVM). Built with ASan and UBSan by
 * native/fuzz/run; any crash, sanitizer report or broken invariant below is a finding. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "json.h"
#include "mutf8.h"
#include "request.h"

static request req;
static json_writer writer;
static char text[REQUEST_MAX_LINE + 1];

static int discard(void *ctx, const char *data, size_t len) {
    (void)ctx;
    (void)data;
    (void)len;
    return 0;
}

static void require(int condition) {
    if (!condition) {
        __builtin_trap();
    }
}

static void exercise_fields(void) {
    require(req.field_count <= REQUEST_MAX_FIELDS);
    require(req.arena_len <= REQUEST_MAX_LINE);
    require(req.item_count <= REQUEST_MAX_ITEMS);
    for (size_t i = 0; i < req.field_count; i++) {
        const char *key = req.fields[i].key;
        require(strlen(key) < REQUEST_MAX_KEY);
        require(request_get(&req, key) == &req.fields[i]); /* keys are unique */
        json_key(&writer, key);
        json_int(&writer, request_int(&req, key, -1));
        json_bool(&writer, request_bool(&req, key, 0));
        const char *s = request_string(&req, key);
        if (s != NULL) {
            require(s >= req.arena && s + strlen(s) < req.arena + req.arena_len);
            json_cstring(&writer, s);
        }
        size_t n = 0;
        const int64_t *ints = request_ints(&req, key, &n);
        require((ints == NULL) == (n == 0));
        for (size_t k = 0; k < n; k++) {
            json_int(&writer, ints[k]);
        }
        size_t count = request_string_count(&req, key);
        for (size_t k = 0; k < count; k++) {
            const char *item = request_string_at(&req, key, k);
            require(item != NULL);
            json_cstring(&writer, item);
        }
        require(request_string_at(&req, key, count) == NULL);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *error = NULL;
    json_init(&writer, discard, NULL);
    json_begin_array(&writer);
    if (request_parse((const char *)data, size, &req, &error) == 0) {
        exercise_fields();
    } else {
        require(error != NULL);
        require(req.field_count == 0);
        json_cstring(&writer, error);
    }
    /* The same bytes as a thread name would come from the JVM, and as UTF-8 to be escaped. */
    size_t n = size < REQUEST_MAX_LINE ? size : REQUEST_MAX_LINE;
    memcpy(text, data, n);
    text[n] = '\0';
    json_mutf8(&writer, text);
    json_string(&writer, (const char *)data, n);
    char small[64];
    size_t needed = mutf8_to_utf8(text, small, sizeof small);
    require(strlen(small) <= needed && strlen(small) < sizeof small);
    json_end_array(&writer);
    require(json_flush(&writer) == 0);
    return 0;
}
