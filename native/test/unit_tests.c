/* Unit tests of the agent's pure parts, run under AddressSanitizer and UBSan by the build. */
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "aggregate.h"
#include "base64.h"
#include "latency_histogram.h"
#include "big_block.h"
#include "chunk_lines.h"
#include "stack_counts.h"
#include "collection_ledger.h"
#include "json.h"
#include "lock_fit.h"
#include "lock_owners.h"
#include "method_index.h"
#include "perf_map.h"
#include "code_list.h"
#include "mutf8.h"
#include "native_ids.h"
#include "own_memory.h"
#include "request.h"
#include "safepoint_log.h"
#include "sha256.h"
#include "base64.h"
#include "stack_tree.h"
#include "task_stat.h"
#include "thread_state.h"
#include "trusted_directory.h"
#include "vm_structs.h"

static int passed;
static int failed;

#define CHECK(cond) check((cond), #cond, __FILE__, __LINE__)

static void check(int ok, const char *what, const char *file, int line) {
    if (ok) {
        passed++;
    } else {
        failed++;
        fprintf(stderr, "FAILED %s:%d: %s\n", file, line, what);
    }
}

typedef struct {
    char *data;
    size_t len;
    size_t cap;
    int flushes;
} sink_buffer;

static int to_buffer(void *ctx, const char *data, size_t len) {
    sink_buffer *b = ctx;
    if (b->len + len + 1 > b->cap) {
        b->cap = (b->len + len + 1) * 2;
        b->data = realloc(b->data, b->cap);
    }
    memcpy(b->data + b->len, data, len);
    b->len += len;
    b->data[b->len] = '\0';
    b->flushes++;
    return 0;
}

static json_writer writer;

static void start(sink_buffer *b) {
    memset(b, 0, sizeof *b);
    json_init(&writer, to_buffer, b);
}

static void test_collection_ledger(void) {
    static collection_ledger ledger;
    /* a concurrent collector: sentinels 1-5 found cleared while 10 was the newest published */
    ledger_init(&ledger, 0);
    ledger_observe(&ledger, 5, 10);
    CHECK(ledger.settled == 0);
    CHECK(ledger_age(&ledger, 3) == 0); /* it may still be clearing the sample's ref: no credit yet */
    ledger_observe(&ledger, 8, 12);      /* its own late ones, all published before it was seen */
    CHECK(ledger.settled == 0);
    ledger_observe(&ledger, 11, 15);     /* sentinel 11 came after it: a later collection, it is settled */
    CHECK(ledger.settled == 1);
    CHECK(ledger_age(&ledger, 3) == 1);
    CHECK(ledger_age(&ledger, 5) == 1);
    CHECK(ledger_age(&ledger, 6) == 0);  /* sentinels 6-8 were not yet cleared when it was first seen */
    ledger_observe(&ledger, 16, 20);
    CHECK(ledger.settled == 2);
    CHECK(ledger_age(&ledger, 3) == 2);
    CHECK(ledger_age(&ledger, 11) == 1);
    CHECK(ledger_age(&ledger, 12) == 0);

    /* a collector that clears weak refs in its pauses: each collection counts once seen */
    ledger_init(&ledger, 1);
    ledger_observe(&ledger, 5, 10);
    CHECK(ledger.settled == 1 && ledger_age(&ledger, 5) == 1 && ledger_age(&ledger, 6) == 0);
    ledger_observe(&ledger, 7, 12);
    CHECK(ledger.settled == 2 && ledger_age(&ledger, 5) == 2 && ledger_age(&ledger, 7) == 1);

    /* past the last slot the last one stands for the rest */
    ledger_init(&ledger, 1);
    for (uint32_t i = 1; i <= LEDGER_MAX_COLLECTIONS + 5; i++) {
        ledger_observe(&ledger, i, i);
    }
    CHECK(ledger.settled == LEDGER_MAX_COLLECTIONS);
    CHECK(ledger_age(&ledger, 1) == LEDGER_MAX_COLLECTIONS);
    CHECK(ledger_age(&ledger, LEDGER_MAX_COLLECTIONS + 5) == 1);
}

static void test_mutf8(void) {
    char out[64];
    /* U+1F680 as a surrogate pair in modified UTF-8, then é, then an encoded NUL */
    const char rocket[] = "\xED\xA0\xBD\xED\xBA\x80 \xC3\xA9 \xC0\x80!";
    size_t need = mutf8_to_utf8(rocket, out, sizeof out);
    CHECK(need == 4 + 1 + 2 + 1 + 1 + 1);
    CHECK(memcmp(out, "\xF0\x9F\x9A\x80 \xC3\xA9 \0!", need) == 0);

    CHECK(mutf8_to_utf8("plain", out, sizeof out) == 5 && strcmp(out, "plain") == 0);

    mutf8_to_utf8("\xED\xA0\xBD", out, sizeof out); /* lone high surrogate */
    CHECK(strcmp(out, "\xEF\xBF\xBD") == 0);
    mutf8_to_utf8("\xED\xBA\x80x", out, sizeof out); /* lone low surrogate */
    CHECK(strcmp(out, "\xEF\xBF\xBDx") == 0);
    mutf8_to_utf8("\xC3", out, sizeof out); /* truncated sequence */
    CHECK(strcmp(out, "\xEF\xBF\xBD") == 0);

    char small[4];
    CHECK(mutf8_to_utf8("abcdef", small, sizeof small) == 6);
    CHECK(strcmp(small, "abc") == 0);
    CHECK(mutf8_to_utf8("\xC3\xA9\xC3\xA9", small, sizeof small) == 4);
    CHECK(strcmp(small, "\xC3\xA9") == 0); /* never half a code point */
}

static void test_json_structure(void) {
    sink_buffer b;
    start(&b);
    json_begin_object(&writer);
    json_key(&writer, "a");
    json_int(&writer, -42);
    json_key(&writer, "list");
    json_begin_array(&writer);
    json_bool(&writer, 1);
    json_null(&writer);
    json_begin_object(&writer);
    json_end_object(&writer);
    json_begin_array(&writer);
    json_end_array(&writer);
    json_end_array(&writer);
    json_key(&writer, "s");
    json_cstring(&writer, "x");
    json_end_object(&writer);
    CHECK(json_flush(&writer) == 0);
    CHECK(strcmp(b.data, "{\"a\":-42,\"list\":[true,null,{},[]],\"s\":\"x\"}") == 0);
    free(b.data);
}

static void test_json_escaping(void) {
    sink_buffer b;
    start(&b);
    json_begin_array(&writer);
    json_cstring(&writer, "q\"b\\t\tn\nc\x01\x7f");
    json_mutf8(&writer, "weird \"name\"\\ \xED\xA0\xBD\xED\xBA\x80 \xC3\xA9\t\n\xC0\x80");
    json_string(&writer, "\xFF\xC3", 2); /* malformed UTF-8 */
    json_mutf8(&writer, NULL);
    json_end_array(&writer);
    json_flush(&writer);
    CHECK(strcmp(b.data, "[\"q\\\"b\\\\t\\tn\\nc\\u0001\\u007f\","
                         "\"weird \\\"name\\\"\\\\ \xF0\x9F\x9A\x80 \xC3\xA9\\t\\n\\u0000\","
                         "\"\xEF\xBF\xBD\xEF\xBF\xBD\",null]") == 0);
    free(b.data);
}

static void test_json_numbers_and_fragments(void) {
    sink_buffer b;
    start(&b);
    json_begin_array(&writer);
    json_int(&writer, 0);
    json_int(&writer, INT64_MIN);
    json_int(&writer, INT64_MAX);
    json_fragment(&writer, "{\"a\":", 5);
    json_raw_bytes(&writer, "1}", 2);
    json_fragment(&writer, "true", 4);
    json_cstring(&writer, "long plain ASCII run, then \"quoted\" and \x01");
    json_end_array(&writer);
    json_flush(&writer);
    CHECK(strcmp(b.data, "[0,-9223372036854775808,9223372036854775807,{\"a\":1},true,"
                         "\"long plain ASCII run, then \\\"quoted\\\" and \\u0001\"]") == 0);
    free(b.data);
}

static void test_json_streams_large_output(void) {
    sink_buffer b;
    start(&b);
    json_begin_array(&writer);
    for (int i = 0; i < 50000; i++) {
        json_int(&writer, 1234567);
    }
    json_end_array(&writer);
    json_flush(&writer);
    CHECK(b.len == 2 + 50000 * 7 + 49999);
    CHECK(b.flushes > 1);
    int in_order = b.len == 2 + 50000 * 7 + 49999 && b.data[0] == '[' && b.data[b.len - 1] == ']';
    for (size_t at = 1; in_order && at + 1 < b.len; at += 8) { /* every value whole, across the flushes */
        in_order = memcmp(b.data + at, "1234567", 7) == 0 && b.data[at + 7] == (at + 8 < b.len ? ',' : ']');
    }
    CHECK(in_order);
    free(b.data);
}

static int fails_with(const char *text, const char *expected) {
    static request req;
    const char *error = NULL;
    int rc = request_parse(text, strlen(text), &req, &error);
    if (rc == 0 || error == NULL) {
        return 0;
    }
    return expected == NULL || strcmp(error, expected) == 0;
}

static void test_request_valid(void) {
    static request req;
    const char *error = NULL;
    const char *text = " {\"v\":1, \"id\":-7,\"cmd\":\"stacks\",\"deep\":true,\"none\":null,"
                       "\"ids\":[1, 2,3],\"names\":[\"a\\tb\",\"\\ud83d\\ude80\\u00e9\"],\"empty\":[]} ";
    CHECK(request_parse(text, strlen(text), &req, &error) == 0);
    CHECK(request_int(&req, "v", 0) == 1);
    CHECK(request_int(&req, "id", 0) == -7);
    CHECK(request_int(&req, "missing", 99) == 99);
    CHECK(request_int(&req, "cmd", 99) == 99); /* wrong type: the fallback */
    CHECK(strcmp(request_string(&req, "cmd"), "stacks") == 0);
    CHECK(request_bool(&req, "deep", 0) == 1);
    CHECK(request_string(&req, "none") == NULL);
    size_t n = 0;
    const int64_t *ids = request_ints(&req, "ids", &n);
    CHECK(n == 3 && ids[0] == 1 && ids[2] == 3);
    CHECK(request_ints(&req, "empty", &n) == NULL && n == 0);
    CHECK(request_string_count(&req, "names") == 2);
    CHECK(strcmp(request_string_at(&req, "names", 0), "a\tb") == 0);
    CHECK(strcmp(request_string_at(&req, "names", 1), "\xF0\x9F\x9A\x80\xC3\xA9") == 0);
    CHECK(request_string_at(&req, "names", 2) == NULL);

    /* the whole int64 range, both ends */
    const char *extremes = "{\"min\":-9223372036854775808,\"max\":9223372036854775807,\"zero\":-0}";
    CHECK(request_parse(extremes, strlen(extremes), &req, &error) == 0);
    CHECK(request_int(&req, "min", 0) == INT64_MIN);
    CHECK(request_int(&req, "max", 0) == INT64_MAX);
    CHECK(request_int(&req, "zero", 1) == 0);
}

static void test_request_invalid(void) {
    CHECK(fails_with("", "malformed JSON"));
    CHECK(fails_with("garbage", "malformed JSON"));
    CHECK(fails_with("{\"v\":1", "malformed object"));
    CHECK(fails_with("{\"v\":1}}", "trailing data after object"));
    CHECK(fails_with("{\"v\":\"abc", "unterminated string"));
    CHECK(fails_with("{\"v\":99999999999999999999}", "number out of range"));
    CHECK(fails_with("{\"v\":9223372036854775808}", "number out of range"));
    CHECK(fails_with("{\"v\":-9223372036854775809}", "number out of range"));
    CHECK(fails_with("{\"v\":1.5}", "only integers are accepted"));
    CHECK(fails_with("{\"v\":1,\"v\":2}", "duplicate key"));
    CHECK(fails_with("{\"v\":{\"nested\":1}}", "malformed number"));
    CHECK(fails_with("{\"a\":\"\\ud83d\"}", "lone surrogate in string"));
    CHECK(fails_with("{\"a\":\"\\u0000\"}", "NUL in string"));
    CHECK(fails_with("{\"a\":\"\\x\"}", "bad escape in string"));
    CHECK(fails_with("{\"a\":[1,\"b\"]}", "mixed array"));
    CHECK(fails_with("{\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\":1}", "key too long"));
    CHECK(fails_with("{\"a\":\"tab\there\"}", "control character in string"));

    char many[1024] = "{";
    for (int i = 0; i < REQUEST_MAX_FIELDS + 1; i++) {
        char field[16];
        snprintf(field, sizeof field, "%s\"k%d\":1", i == 0 ? "" : ",", i);
        strcat(many, field);
    }
    strcat(many, "}");
    CHECK(fails_with(many, "too many fields"));

    size_t big = REQUEST_MAX_ITEMS * 2 + 16;
    char *items = malloc(big * 2 + 32);
    strcpy(items, "{\"a\":[");
    for (size_t i = 0; i <= REQUEST_MAX_ITEMS; i++) {
        strcat(items, i == 0 ? "1" : ",1");
    }
    strcat(items, "]}");
    CHECK(fails_with(items, "too many array items"));
    free(items);
}

static void test_thread_state(void) {
    CHECK(strcmp(thread_state_name(0), "NEW") == 0);
    CHECK(strcmp(thread_state_name(JVMTI_THREAD_STATE_ALIVE | JVMTI_THREAD_STATE_RUNNABLE | JVMTI_THREAD_STATE_IN_NATIVE), "RUNNABLE") == 0);
    CHECK(strcmp(thread_state_name(JVMTI_THREAD_STATE_ALIVE | JVMTI_THREAD_STATE_BLOCKED_ON_MONITOR_ENTER), "BLOCKED") == 0);
    CHECK(strcmp(thread_state_name(JVMTI_THREAD_STATE_ALIVE | JVMTI_THREAD_STATE_WAITING | JVMTI_THREAD_STATE_WAITING_INDEFINITELY | JVMTI_THREAD_STATE_PARKED), "WAITING") == 0);
    CHECK(strcmp(thread_state_name(JVMTI_THREAD_STATE_ALIVE | JVMTI_THREAD_STATE_WAITING | JVMTI_THREAD_STATE_WAITING_WITH_TIMEOUT | JVMTI_THREAD_STATE_SLEEPING), "TIMED_WAITING") == 0);
    CHECK(strcmp(thread_state_name(JVMTI_THREAD_STATE_TERMINATED), "TERMINATED") == 0);

    sink_buffer b;
    start(&b);
    thread_state_write_flags(&writer, JVMTI_THREAD_STATE_ALIVE | JVMTI_THREAD_STATE_WAITING | JVMTI_THREAD_STATE_IN_OBJECT_WAIT | JVMTI_THREAD_STATE_INTERRUPTED);
    json_flush(&writer);
    CHECK(strcmp(b.data, "[\"in_object_wait\",\"interrupted\"]") == 0);
    free(b.data);
}


static void test_stack_table(void) {
    stack_table t;
    CHECK(stack_table_init(&t, 16) == 0);
    jvmtiFrameInfo a[3] = { { (jmethodID)0x10, 1 }, { (jmethodID)0x20, 2 }, { (jmethodID)0x30, 3 } };
    jvmtiFrameInfo b[3] = { { (jmethodID)0x10, 1 }, { (jmethodID)0x20, 9 }, { (jmethodID)0x30, 3 } };
    stack_entry *ea = stack_table_find_or_add(&t, 1, -1, a, 3);
    CHECK(ea != NULL && ea->depth == 3 && ea->count == 0);
    ea->count++;
    CHECK(stack_table_find_or_add(&t, 1, -1, a, 3) == ea);      /* same key and stack */
    CHECK(stack_table_find_or_add(&t, 1, -1, b, 3) != ea);      /* another bci */
    CHECK(stack_table_find_or_add(&t, 2, -1, a, 3) != ea);      /* another class */
    CHECK(stack_table_find_or_add(&t, 1, 7, a, 3) != ea);       /* another thread */
    CHECK(stack_table_find_or_add(&t, 1, -1, a, 2) != ea);      /* shorter stack */
    CHECK(t.used == 5);
    int added = 0;
    for (int i = 0; i < 100; i++) {
        jvmtiFrameInfo f = { (jmethodID)(intptr_t)(0x1000 + i), 0 };
        added += stack_table_find_or_add(&t, 3, -1, &f, 1) != NULL;
    }
    CHECK(t.used == 12 && added == 7);                           /* 3/4 of 16, then refused */
    CHECK(stack_table_find_or_add(&t, 1, -1, a, 3) == ea);      /* still found when full */
    jvmtiFrameInfo deep[STACK_MAX_FRAMES + 5];
    memset(deep, 0, sizeof deep);
    stack_table_free(&t);
    CHECK(stack_table_init(&t, 4) == 0);
    stack_entry *e = stack_table_find_or_add(&t, 0, -1, deep, STACK_MAX_FRAMES + 5);
    CHECK(e != NULL && e->depth == STACK_MAX_FRAMES);
    stack_table_free(&t);
}

static void test_name_table(void) {
    name_table t;
    CHECK(name_table_init(&t, 3, 16) == 0);
    CHECK(name_table_intern(&t, "[B") == 0);
    CHECK(name_table_intern(&t, "Ljava/lang/String;") == -1);   /* arena too small */
    CHECK(name_table_intern(&t, "LFoo;") == 1);
    CHECK(name_table_intern(&t, "[B") == 0);
    CHECK(name_table_intern(&t, "I") == 2);
    CHECK(name_table_intern(&t, "J") == -1);                    /* count full */
    CHECK(strcmp(name_table_get(&t, 1), "LFoo;") == 0);
    CHECK(name_table_get(&t, 3) == NULL && name_table_get(&t, -1) == NULL);
    name_table_free(&t);
}

static void test_sample_weight(void) {
    uint64_t interval = 512 * 1024;
    /* a tiny object stands for about one interval */
    CHECK(sample_weight(16, interval) >= interval && sample_weight(16, interval) <= interval + 16);
    /* size == interval: 1 / (1 - 1/e) = 1.58198 */
    uint64_t w = sample_weight(interval, interval);
    CHECK(w > interval * 1.5818 && w < interval * 1.5821);
    /* a huge object stands for itself */
    CHECK(sample_weight(100 * interval, interval) == 100 * interval);
    CHECK(sample_weight(0, interval) == 0);
}

static void test_perf_map_symbols(void) {
    char out[64];
    perf_map_symbol("Ldev/x/Hot$Inner;", "run", out, sizeof out);
    CHECK(strcmp(out, "dev.x.Hot$Inner::run") == 0);
    perf_map_symbol("[[I", "clone", out, sizeof out);
    CHECK(strcmp(out, "int[][]::clone") == 0);
    perf_map_symbol("[Ljava/lang/String;", "m", out, sizeof out);
    CHECK(strcmp(out, "java.lang.String[]::m") == 0);
    perf_map_symbol(NULL, NULL, out, sizeof out);
    CHECK(strcmp(out, "?::?") == 0);
    perf_map_symbol("LA;", "bad\nname", out, sizeof out);
    CHECK(strcmp(out, "A::bad name") == 0);
    char small[8];
    perf_map_symbol("Lcom/example/VeryLong;", "method", small, sizeof small);
    CHECK(strlen(small) == 7);
    CHECK(perf_map_line(out, sizeof out, 0x7f00deadbeefULL, 0x1a0, "A::b") == strlen("7f00deadbeef 1a0 A::b\n"));
    CHECK(strcmp(out, "7f00deadbeef 1a0 A::b\n") == 0);
}

static int write_map(perf_map *m, const char *text) {
    int fd;
    char tmp[128];
    if (perf_map_begin(m, &fd, tmp, sizeof tmp) != 0) {
        return -1;
    }
    perf_map_write(fd, text, strlen(text));
    return perf_map_commit(m, fd, tmp);
}

static void test_perf_map_file(void) {
    char path[64];
    char victim[64];
    char buf[64];
    struct stat st;
    perf_map_path(path, sizeof path);
    snprintf(buf, sizeof buf, "/tmp/perf-%d.map", (int)getpid());
    CHECK(strcmp(path, buf) == 0);
    snprintf(victim, sizeof victim, "/tmp/perf-test-victim-%d", (int)getpid());
    unlink(path);
    FILE *f = fopen(victim, "w");
    fputs("precious\n", f);
    fclose(f);

    perf_map m;
    perf_map_init(&m, path);
    CHECK(symlink(victim, path) == 0);
    CHECK(write_map(&m, "1 2 A::b\n") == -1);                 /* a planted link is refused */
    CHECK(strstr(m.error, "symbolic link") != NULL);
    CHECK(lstat(path, &st) == 0 && S_ISLNK(st.st_mode));      /* and left alone */
    f = fopen(victim, "r");
    CHECK(fgets(buf, sizeof buf, f) != NULL && strcmp(buf, "precious\n") == 0);
    fclose(f);
    unlink(path);

    mode_t old = umask(077);
    CHECK(write_map(&m, "1 2 A::b\n") == 0);
    umask(old);
    CHECK(lstat(path, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0777) == 0644 && st.st_uid == geteuid());
    CHECK(m.fd >= 0 && perf_map_write(m.fd, "3 4 C::d\n", 9) == 0);  /* appends while following */
    CHECK(write_map(&m, "5 6 E::f\n") == 0);                  /* a rewrite replaces it */
    f = fopen(path, "r");
    CHECK(fgets(buf, sizeof buf, f) != NULL && strcmp(buf, "5 6 E::f\n") == 0);
    CHECK(fgets(buf, sizeof buf, f) == NULL);
    fclose(f);
    perf_map_close(&m);
    CHECK(m.fd == -1);
    unlink(path);
    unlink(victim);
}

/* Indices in first-seen order, stable while the table grows past many doublings. */
static void test_method_index(void) {
    method_index t;
    method_index_init(&t);
    enum { N = 5000 };
    int ok = 1;
    for (uintptr_t i = 0; i < N; i++) {
        /* aligned like real jmethodIDs, and colliding ones: same low bits, different high bits */
        jmethodID m = (jmethodID)(0x7f0000001000u + i * 8 + (i % 2 ? (uintptr_t)1 << 40 : 0));
        ok &= method_index_of(&t, m) == (int32_t)i;
        ok &= method_index_of(&t, m) == (int32_t)i; /* asked again: the same index, nothing added */
    }
    CHECK(ok);
    CHECK(method_index_count(&t) == N);
    CHECK(t.ids.capacity >= 2 * N);
    int again = 1;
    for (uintptr_t i = 0; i < N; i++) {
        jmethodID m = (jmethodID)(0x7f0000001000u + i * 8 + (i % 2 ? (uintptr_t)1 << 40 : 0));
        again &= method_index_of(&t, m) == (int32_t)i && method_index_method(&t, i) == m;
    }
    CHECK(again);
    CHECK(method_index_count(&t) == N);
    method_index_free(&t);
    CHECK(method_index_count(&t) == 0 && t.ids.keys == NULL && t.ids.slots == NULL);
    method_index_init(&t);
    CHECK(method_index_of(&t, (jmethodID)(uintptr_t)0x1008) == 0);
    CHECK(method_index_of(&t, (jmethodID)(uintptr_t)0x1010) == 1);
    CHECK(method_index_of(&t, (jmethodID)(uintptr_t)0x1008) == 0);
    method_index_free(&t);
}

static void test_stack_tree(void) {
    stack_tree t;
    stack_tree_init(&t);
    /* two stacks sharing their two bottom frames: main <- run <- park and main <- run <- sleep */
    int32_t bottom = stack_tree_add(&t, STACK_TREE_ROOT, 0, 10);
    int32_t run = stack_tree_add(&t, bottom, 1, 20);
    int32_t park = stack_tree_add(&t, run, 2, -2);
    CHECK(bottom == 0 && run == 1 && park == 2);
    CHECK(stack_tree_add(&t, STACK_TREE_ROOT, 0, 10) == bottom);
    CHECK(stack_tree_add(&t, bottom, 1, 20) == run);
    CHECK(stack_tree_add(&t, run, 3, -2) == 3);
    CHECK(stack_tree_add(&t, bottom, 1, 21) == 4); /* another line is another node */
    CHECK(stack_tree_add(&t, run, 2, -2) == park);
    sink_buffer b;
    start(&b);
    stack_tree_write(&writer, &t, 0);
    CHECK(json_flush(&writer) == 0);
    CHECK(strcmp(b.data, "[[-1,0,10],[0,1,20],[1,2,-2],[1,3,-2],[0,1,21]]") == 0);
    free(b.data);
    start(&b); /* what a later part of an answer carries: the nodes added since the last one */
    stack_tree_write(&writer, &t, 3);
    CHECK(json_flush(&writer) == 0);
    CHECK(strcmp(b.data, "[[1,3,-2],[0,1,21]]") == 0);
    free(b.data);
    stack_tree_free(&t);

    /* a deep chain grows the table through many doublings; every node keeps its index */
    stack_tree_init(&t);
    enum { N = 20000 };
    int ok = 1;
    int32_t node = STACK_TREE_ROOT;
    for (int32_t i = 0; i < N; i++) {
        int32_t next = stack_tree_add(&t, node, i % 7, i);
        ok &= next == i;
        node = next;
    }
    CHECK(ok);
    CHECK(stack_tree_count(&t) == N && t.nodes.capacity >= 2 * N);
    int again = 1;
    node = STACK_TREE_ROOT;
    for (int32_t i = 0; i < N; i++) {
        again &= stack_tree_add(&t, node, i % 7, i) == i && stack_tree_node(&t, (size_t)i).parent == node;
        node = i;
    }
    CHECK(again && stack_tree_count(&t) == N);
    stack_tree_free(&t);
    CHECK(stack_tree_count(&t) == 0 && t.nodes.keys == NULL && t.nodes.slots == NULL);
}

/* Threads named as a test wants, parked until it is done with them. */
static pthread_mutex_t named_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t named_done = PTHREAD_COND_INITIALIZER;
static int named_release;

static void *named_thread(void *tid_out) {
    *(pid_t *)tid_out = gettid();
    pthread_mutex_lock(&named_lock);
    while (!named_release) {
        pthread_cond_wait(&named_done, &named_lock);
    }
    pthread_mutex_unlock(&named_lock);
    return NULL;
}

static void test_native_ids(void) {
    enum { N = 4 };
    const char *names[N] = { "ids-alpha", "ids-beta", "ids-twin-thread", "ids-twin-thread" }; /* at most 15 bytes */
    pthread_t threads[N];
    volatile pid_t tids[N] = { 0 };
    for (int i = 0; i < N; i++) {
        CHECK(pthread_create(&threads[i], NULL, named_thread, (void *)&tids[i]) == 0);
        CHECK(pthread_setname_np(threads[i], names[i]) == 0);
    }
    for (int i = 0; i < N; i++) {
        while (tids[i] == 0) {
            usleep(1000);
        }
    }
    /* a name whole and of one task: certain; of no task, of two tasks, cut to 15 bytes, or
     * shared by two threads asked about: unknown, never a guess */
    const char *asked[6] = { "ids-alpha", "ids-nobody", "ids-twin-thread", "ids-twin-thread-1-long", "ids-beta", "ids-beta" };
    native_thread found[6] = { 0 };
    native_ids_from_names(asked, 6, found);
    CHECK(found[0].nid == tids[0]);
    CHECK(found[1].nid == 0 && found[2].nid == 0 && found[3].nid == 0 && found[4].nid == 0 && found[5].nid == 0);
    const char *beta[2] = { "ids-beta", NULL };
    native_thread one[2] = { 0 };
    native_ids_from_names(beta, 2, one);
    CHECK(one[0].nid == tids[1] && one[1].nid == 0);

    /* kept: a task of this process, once; cleared: a pid of no task, a task of another process
     * (the parent's first), and both of a pair */
    native_thread checked[7] = { { .nid = tids[0], .os_state = "runnable", .address = 0x1000 },
                                 { .nid = 0x7fffffff, .os_state = "runnable", .address = 0x2000 },
                                 { .nid = tids[1], .address = 0x3000 }, { .nid = tids[1], .address = 0x4000 }, { .nid = 0 },
                                 { .nid = getppid(), .address = 0x5000 }, { .nid = tids[2], .address = 0x6000 } };
    native_ids_keep_own(checked, 7);
    CHECK(checked[0].nid == tids[0] && checked[0].address == 0x1000);
    CHECK(checked[1].nid == 0 && checked[1].os_state == NULL && checked[1].address == 0);
    CHECK(checked[2].nid == 0 && checked[3].nid == 0 && checked[2].address == 0 && checked[4].nid == 0);
    CHECK(checked[5].nid == 0 && checked[5].address == 0);
    CHECK(checked[6].nid == tids[2] && checked[6].address == 0x6000);
    CHECK(checked[0].own_task && checked[6].own_task && !checked[1].own_task && !checked[2].own_task);
    /* an entry proven before is not asked again (a pid of no task passes then), but still loses
     * a nid another entry has too */
    native_thread proven[3] = { { .nid = 0x7ffffffe, .own_task = 1 }, { .nid = tids[0], .own_task = 1 }, { .nid = tids[0] } };
    native_ids_keep_own(proven, 3);
    CHECK(proven[0].nid == 0x7ffffffe && proven[0].own_task);
    CHECK(proven[1].nid == 0 && proven[2].nid == 0 && !proven[1].own_task);

    pthread_mutex_lock(&named_lock);
    named_release = 1;
    pthread_cond_broadcast(&named_done);
    pthread_mutex_unlock(&named_lock);
    for (int i = 0; i < N; i++) {
        pthread_join(threads[i], NULL);
    }
}

/* Entries laid out as HotSpot's are (a VMStructEntry, a VMTypeEntry, a VMIntConstantEntry). */
typedef struct {
    const char *type_name;
    const char *field_name;
    const char *type_string;
    int32_t is_static;
    uint64_t offset;
    void *address;
} fake_struct_entry;

typedef struct {
    const char *type_name;
    const char *superclass;
    int32_t is_oop, is_integer, is_unsigned;
    uint64_t size;
} fake_type_entry;

typedef struct {
    const char *name;
    int32_t value;
} fake_int_entry;

static void test_vm_structs(void) {
    static fake_struct_entry structs[] = {
        { "Thread", "_osthread", "OSThread*", 0, 1016, NULL },
        { "OSThread", "_thread_id", "pid_t", 0, 12, NULL },
        { "OSThread", "_count", "int", 1, 0, (void *)16 },
        { NULL, NULL, NULL, 0, 0, NULL },
        { "After", "_end", "int", 0, 4, NULL },
    };
    static fake_type_entry types[] = { { "pid_t", NULL, 0, 1, 0, 4 }, { "OSThread*", NULL, 0, 0, 0, 8 }, { NULL, NULL, 0, 0, 0, 0 } };
    static fake_int_entry ints[] = { { "RUNNABLE", 2 }, { "SLEEPING", 7 }, { NULL, 0 } };
    vm_structs vm = {
        { (const char *)structs, sizeof structs[0], offsetof(fake_struct_entry, type_name), offsetof(fake_struct_entry, field_name),
          offsetof(fake_struct_entry, type_string), offsetof(fake_struct_entry, is_static), offsetof(fake_struct_entry, offset),
          offsetof(fake_struct_entry, address) },
        { (const char *)types, sizeof types[0], offsetof(fake_type_entry, type_name), offsetof(fake_type_entry, size) },
        { (const char *)ints, sizeof ints[0], offsetof(fake_int_entry, name), offsetof(fake_int_entry, value) },
    };
    CHECK(vm_structs_layout_fits(&vm));
    uint64_t offset = 0;
    uint64_t size = 0;
    int32_t value = 0;
    const char *type = NULL;
    CHECK(vm_structs_field(&vm, "Thread", "_osthread", &offset, &type) == 0 && offset == 1016 && strcmp(type, "OSThread*") == 0);
    CHECK(vm_structs_field(&vm, "OSThread", "_thread_id", &offset, &type) == 0 && offset == 12);
    CHECK(vm_structs_field(&vm, "JavaThread", "_osthread", &offset, &type) == -1);
    CHECK(vm_structs_field(&vm, "OSThread", "_count", &offset, &type) == -1); /* static: no offset */
    CHECK(vm_structs_field(&vm, "After", "_end", &offset, &type) == -1);      /* past the end */
    uintptr_t address = 0;
    CHECK(vm_structs_static(&vm, "OSThread", "_count", &address, &type) == 0 && address == 16 && strcmp(type, "int") == 0);
    CHECK(vm_structs_static(&vm, "Thread", "_osthread", &address, &type) == -1); /* not static */
    CHECK(vm_structs_type_size(&vm, "pid_t", &size) == 0 && size == 4);
    CHECK(vm_structs_type_size(&vm, "ThreadState", &size) == -1);
    CHECK(vm_structs_int(&vm, "SLEEPING", &value) == 0 && value == 7);
    CHECK(vm_structs_int(&vm, "ZOMBIE", &value) == -1);

    vm_structs misfit = vm;
    misfit.structs.offset = sizeof structs[0] - 4; /* an 8-byte member past the entry's end */
    CHECK(!vm_structs_layout_fits(&misfit));
    misfit = vm;
    misfit.ints.stride = 1u << 20;
    CHECK(!vm_structs_layout_fits(&misfit));

    vm_structs none;
    CHECK(vm_structs_find(&none) == -1); /* this test is no JVM */
}

static void test_own_memory(void) {
    long page = sysconf(_SC_PAGESIZE);
    char *gone = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(gone != MAP_FAILED);
    munmap(gone, (size_t)page);
    enum { N = 600 }; /* more than one batch */
    static uint64_t here[N];
    static uint64_t copy[N];
    static own_read reads[N];
    for (size_t i = 0; i < N; i++) {
        here[i] = 0x0123456789abcdefULL + i;
        copy[i] = 0;
        reads[i] = (own_read) { (uintptr_t)&here[i], &copy[i], sizeof copy[i], 0 };
    }
    reads[3].address = 0;                  /* nothing to read */
    reads[10].address = (uintptr_t)gone;   /* unmapped: fails, no fault, and the rest is still read */
    reads[300].address = (uintptr_t)gone;
    own_memory_read_each(reads, N);
    int rest = 1;
    for (size_t i = 0; i < N; i++) {
        if (i != 3 && i != 10 && i != 300) {
            rest = rest && reads[i].ok && copy[i] == here[i];
        }
    }
    CHECK(rest);
    CHECK(!reads[3].ok && !reads[10].ok && !reads[300].ok && copy[10] == 0);
}

static void test_big_block(void) {
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    unsigned char *block = big_block_map(BIG_BLOCK_MIN + 1);
    CHECK(block != NULL && (uintptr_t)block % page == 0);
    CHECK(big_block_size(block) == BIG_BLOCK_MIN + page);
    int zeroed = 1;
    for (size_t i = 0; i < BIG_BLOCK_MIN + 1; i++) {
        zeroed = zeroed && block[i] == 0;
        block[i] = (unsigned char)i;
    }
    CHECK(zeroed);
    unsigned char *grown = big_block_remap(block, 4 * BIG_BLOCK_MIN);
    CHECK(grown != NULL && big_block_size(grown) == 4 * BIG_BLOCK_MIN);
    int kept = 1;
    for (size_t i = 0; grown != NULL && i < BIG_BLOCK_MIN + 1; i++) {
        kept = kept && grown[i] == (unsigned char)i;
    }
    CHECK(kept);
    CHECK(grown == block || big_block_size(block) == 0);
    CHECK(big_block_unmap(grown) == 4 * BIG_BLOCK_MIN);
    CHECK(big_block_size(grown) == 0 && big_block_unmap(grown) == 0);

    void *from_malloc = malloc(64);
    CHECK(big_block_size(from_malloc) == 0 && big_block_unmap(from_malloc) == 0);
    CHECK(big_block_remap(from_malloc, BIG_BLOCK_MIN) == NULL);
    free(from_malloc);
    CHECK(big_block_size(NULL) == 0 && big_block_unmap(NULL) == 0);

    void *all[BIG_BLOCK_SLOTS];
    int mapped = 1;
    for (int i = 0; i < BIG_BLOCK_SLOTS; i++) {
        all[i] = big_block_map(BIG_BLOCK_MIN);
        mapped = mapped && all[i] != NULL;
    }
    CHECK(mapped);
    CHECK(big_block_map(BIG_BLOCK_MIN) == NULL); /* out of slots: the caller uses malloc */
    size_t unmapped = 0;
    for (int i = 0; i < BIG_BLOCK_SLOTS; i++) {
        unmapped += big_block_unmap(all[i]);
    }
    CHECK(unmapped == BIG_BLOCK_SLOTS * BIG_BLOCK_MIN);
    void *again = big_block_map(BIG_BLOCK_MIN);
    CHECK(again != NULL && big_block_unmap(again) == BIG_BLOCK_MIN);
    CHECK(big_block_map(SIZE_MAX) == NULL);
}

static lock_ref ref(jint hash, const char *class_name) {
    return (lock_ref) { hash, (char *)class_name };
}

static void test_lock_owners(void) {
    owned_monitor holder_owns[] = { { ref(1, "Obj"), 2 }, { ref(1, "Obj"), 5 }, { ref(2, "Obj"), 3 }, { ref(3, "Foo"), 4 } };
    owned_monitor other_owns[] = { { ref(2, "Obj"), 1 } };
    lock_subject subjects[7];
    lock_facts facts[7];
    memset(subjects, 0, sizeof subjects);
    memset(facts, 0, sizeof facts);
    for (int i = 0; i < 7; i++) {
        subjects[i].id = 100 + i;
        facts[i].owner_id = 42;
    }
    facts[0].owned = holder_owns;   /* owns 1 (recursively), 2 and 3 */
    facts[0].owned_count = 4;
    facts[1].owned = other_owns;    /* owns an object with hash 2 too */
    facts[1].owned_count = 1;
    facts[2].waiting = WAIT_ENTER;  /* 1: owned by subject 0 alone */
    facts[2].waits_for = ref(1, "Obj");
    facts[3].waiting = WAIT_ENTER;  /* 2: two owners, two objects */
    facts[3].waits_for = ref(2, "Obj");
    facts[4].waiting = WAIT_ENTER;  /* hash 3, but another class */
    facts[4].waits_for = ref(3, "Bar");
    facts[5].waiting = WAIT_ENTER;  /* nobody owns 9 */
    facts[5].waits_for = ref(9, "Obj");
    facts[6].waiting = WAIT_NOTIFY; /* in Object.wait: no owner to look for */
    facts[6].waits_for = ref(1, "Obj");
    unsigned char unresolved[7] = { 0 };

    CHECK(lock_owners_match(subjects, 7, facts, unresolved) == 0);
    CHECK(facts[2].owner_id == 100 && !unresolved[2]);
    CHECK(facts[3].owner_id == -1 && unresolved[3]);
    CHECK(facts[4].owner_id == -1 && unresolved[4]);
    CHECK(facts[5].owner_id == -1 && unresolved[5]);
    CHECK(facts[6].owner_id == 42 && !unresolved[6]);
    CHECK(!unresolved[0] && !unresolved[1]);

    facts[2].owned = other_owns;    /* a thread is never the owner of what it waits to enter */
    facts[2].owned_count = 1;
    facts[2].waits_for = ref(2, "Obj");
    facts[0].owned_count = 0;
    facts[1].owned_count = 0;
    CHECK(lock_owners_match(subjects, 3, facts, unresolved) == 0);
    CHECK(facts[2].owner_id == -1 && unresolved[2]);

    facts[0].owned = holder_owns;   /* in Object.wait on a monitor not named: it may have let go of 1 */
    facts[0].owned_count = 4;
    facts[0].wait_unnamed = 1;
    facts[2].owned_count = 0;
    facts[2].waits_for = ref(1, "Obj");
    CHECK(lock_owners_match(subjects, 3, facts, unresolved) == 0);
    CHECK(facts[2].owner_id == -1 && unresolved[2]);
}

static void test_code_list_parse(void) {
    static const char text[] =
        "0\n"
        "9 4 2 Hot.main([Ljava/lang/String;)V [0x00007f8afcec7790, 0x00007f8afcec7900 - 0x00007f8afcec79b8]\n"
        "not a line of the list\n"
        "5 3 0 Hot.sq(J)J [0x00007f8af5400d10, 0x00007f8af5400ea0 - 0x00007f8af5400f90]\n"
        "6 0 0 a.B$$Lambda/0x0000000801001234.run(Ljava/lang/String [x].)V [0x10, 0x20 - 0x30]\n"
        "7 4 0 Truncated.m()V [0x1, 0x2 -";
    code_list list;
    CHECK(code_list_parse(&list, text, sizeof text - 1) == 0);
    CHECK(list.count == 3);
    CHECK(list.entries[0].code_begin == 0x20 && list.entries[0].code_end == 0x30 && list.entries[0].level == 0);
    CHECK(list.entries[1].compile_id == 5 && list.entries[1].level == 3 && list.entries[1].nmethod == 0x00007f8af5400d10ULL);
    CHECK(list.entries[2].compile_id == 9 && list.entries[2].entry_bci == CODE_LIST_BCI_UNKNOWN);
    CHECK(code_list_find(&list, 0x00007f8afcec7900ULL, 0x00007f8afcec79b8ULL) == &list.entries[2]);
    CHECK(code_list_find(&list, 0x00007f8afcec7900ULL, 0x00007f8afcec79b0ULL) == NULL); /* another size: not that code */
    CHECK(code_list_find(&list, 0x21, 0x30) == NULL);
    /* JDK 11 reports the instructions alone: they end where the nmethod says its stubs begin */
    list.entries[2].instructions_end = 0x00007f8afcec79a0ULL;
    CHECK(code_list_find(&list, 0x00007f8afcec7900ULL, 0x00007f8afcec79a0ULL) == &list.entries[2]);
    CHECK(code_list_find(&list, 0x00007f8afcec7900ULL, 0x00007f8afcec79b0ULL) == NULL);
    CHECK(code_list_find(&list, 0x00007f8afcec7900ULL, 0x00007f8afcec79b8ULL) == &list.entries[2]);
    code_list_free(&list);
    CHECK(code_list_parse(&list, "", 0) == 0 && list.count == 0 && code_list_find(&list, 0, 0) == NULL);
    code_list_free(&list);
}

static void test_task_stat(void) {
    long nice = 0;
    unsigned long long start = 0;
    /* a name with spaces and parentheses; nice is field 19, starttime field 22 */
    static const char line[] = "4711 (a) b (c)) S 1 4700 4700 0 -1 4194368 10 0 0 0 3 4 0 0 20 -5 31 0 123456 1000 50\n";
    CHECK(task_stat_parse(line, &nice, &start) == 0 && nice == -5 && start == 123456ULL);
    CHECK(task_stat_parse("4711 (cut) S 1 2 3", &nice, &start) == -1);
    CHECK(task_stat_parse("no parenthesis", &nice, &start) == -1);
    unsigned long long user = 0, system = 0; /* utime field 14, stime field 15 */
    CHECK(task_stat_parse_cpu(line, &user, &system) == 0 && user == 3 && system == 4);
    CHECK(task_stat_parse_cpu("4711 (cut) S 1 2 3 4 5 6 7 8 9 10 11", &user, &system) == -1);
    CHECK(task_stat_parse_cpu("4711 (neg) S 1 2 3 4 5 6 7 8 9 10 -1 5", &user, &system) == -1);
    task_cpu cpu;
    CHECK(task_stat_read_cpu(getpid(), &cpu) == 0 && cpu.user_nanos >= 0 && cpu.system_nanos >= 0
          && cpu.user_nanos % (1000000000 / sysconf(_SC_CLK_TCK)) == 0);
    CHECK(task_stat_read_cpu(0, &cpu) == -1);
    task_stat own;
    CHECK(task_stat_read(getpid(), &own) == 0 && own.nice >= -20 && own.nice <= 19);
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    int64_t now_millis = (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
    CHECK(own.started_millis <= now_millis + 20 && own.started_millis > now_millis - 3600 * 1000);
    CHECK(task_stat_read(0, &own) == -1);
}

static int stat_pipe[2];
static volatile pid_t stat_tid;

static void *waits_on_pipe(void *unused) {
    (void)unused;
    stat_tid = gettid();
    char c;
    (void)!read(stat_pipe[0], &c, 1);
    return NULL;
}

static int same_millis(int64_t a, int64_t b) {
    return a - b <= 2 && b - a <= 2; /* each computes the boot time in its own milliseconds */
}

static void test_task_stat_threads(void) {
    usleep(30 * 1000); /* a thread that starts some clock ticks after the process */
    CHECK(pipe(stat_pipe) == 0);
    pthread_t thread;
    CHECK(pthread_create(&thread, NULL, waits_on_pipe, NULL) == 0);
    while (stat_tid == 0) {
        usleep(1000);
    }
    task_stat main_task, thread_task;
    CHECK(task_stat_read(getpid(), &main_task) == 0 && task_stat_read(stat_tid, &thread_task) == 0);
    CHECK(thread_task.started_millis - main_task.started_millis >= 20);
    int64_t ids[3] = { 1, 2, 3 };
    pid_t nids[3] = { getpid(), 0, 0x7fffffff };
    task_stat out[3];
    unsigned char ok[3];
    task_stat_read_threads(ids, nids, 3, out, ok);
    CHECK(ok[0] && !ok[1] && !ok[2] && out[0].nice == main_task.nice && same_millis(out[0].started_millis, main_task.started_millis));
    /* kept for the thread while it has that nid; the same thread with another nid: that task, read anew */
    task_stat_read_threads(ids, nids, 1, out, ok);
    CHECK(ok[0] && same_millis(out[0].started_millis, main_task.started_millis));
    nids[0] = stat_tid;
    task_stat_read_threads(ids, nids, 1, out, ok);
    CHECK(ok[0] && out[0].nice == thread_task.nice && same_millis(out[0].started_millis, thread_task.started_millis));
    close(stat_pipe[1]);
    pthread_join(thread, NULL);
    close(stat_pipe[0]);
    /* its task gone: nothing, though its start was kept. pthread_join returns once the thread
     * has left, a moment before the kernel drops its task from /proc */
    char task_dir[64];
    snprintf(task_dir, sizeof task_dir, "/proc/self/task/%d", (int)stat_tid);
    for (int waited = 0; waited < 1000 && access(task_dir, F_OK) == 0; waited++) {
        usleep(1000);
    }
    task_stat_read_threads(ids, nids, 1, out, ok);
    CHECK(!ok[0]);
    task_stat_forget();
}

static void test_lock_fit(void) {
    const jint blocked = JVMTI_THREAD_STATE_ALIVE | JVMTI_THREAD_STATE_BLOCKED_ON_MONITOR_ENTER;
    const jint in_wait = JVMTI_THREAD_STATE_ALIVE | JVMTI_THREAD_STATE_WAITING | JVMTI_THREAD_STATE_IN_OBJECT_WAIT;
    const jint parked = JVMTI_THREAD_STATE_ALIVE | JVMTI_THREAD_STATE_WAITING | JVMTI_THREAD_STATE_PARKED;
    const jint runnable = JVMTI_THREAD_STATE_ALIVE | JVMTI_THREAD_STATE_RUNNABLE;
    owned_monitor owns[] = { { ref(1, "Obj"), 3 } };
    lock_facts none = { .owner_id = -1 };
    lock_facts enter = { .waiting = WAIT_ENTER, .waits_for = ref(2, "Obj"), .owner_id = 7 };
    lock_facts enter_self = { .waiting = WAIT_ENTER, .waits_for = ref(2, "Obj"), .owner_id = 5 };
    lock_facts enter_condition = { .waiting = WAIT_ENTER, .owner_id = -1,
                                   .waits_for = ref(3, "java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject") };
    lock_facts notify = { .waiting = WAIT_NOTIFY, .waits_for = ref(2, "Obj"), .owner_id = -1 };
    lock_facts park = { .waiting = WAIT_PARK, .waits_for = ref(4, "Sync"), .owner_id = 7 };
    lock_facts holding = { .owned = owns, .owned_count = 1, .owner_id = -1 };

    CHECK(lock_fit(blocked, 5, 5, &enter) == LOCK_FIT);
    CHECK(lock_fit(blocked | JVMTI_THREAD_STATE_IN_OBJECT_WAIT, 5, 5, &enter) == LOCK_FIT); /* re-entering after wait */
    CHECK(lock_fit(blocked, 5, 5, &none) == LOCK_FIT_NO_MONITOR);
    CHECK(lock_fit(blocked, 5, 5, &enter_self) == LOCK_FIT_NOT);
    CHECK(lock_fit(blocked, 5, 5, &enter_condition) == LOCK_FIT_NOT);
    CHECK(lock_fit(blocked, 5, 5, &park) == LOCK_FIT_NOT);
    CHECK(lock_fit(blocked, 5, 5, &notify) == LOCK_FIT_NOT);
    CHECK(lock_fit(in_wait, 5, 5, &notify) == LOCK_FIT);
    CHECK(lock_fit(in_wait, 5, 5, &none) == LOCK_FIT_NO_MONITOR);
    CHECK(lock_fit(in_wait, 5, 5, &enter) == LOCK_FIT_NOT);
    CHECK(lock_fit(parked, 5, 5, &park) == LOCK_FIT);
    CHECK(lock_fit(parked, 5, 5, &none) == LOCK_FIT); /* LockSupport.park(null) */
    CHECK(lock_fit(parked, 5, 5, &notify) == LOCK_FIT_NOT);
    CHECK(lock_fit(runnable, 5, 5, &park) == LOCK_FIT_NOT);
    CHECK(lock_fit(runnable, 5, 5, &enter) == LOCK_FIT_NOT);
    CHECK(lock_fit(runnable, 5, 5, &holding) == LOCK_FIT);
    CHECK(lock_fit(runnable, 2, 5, &holding) == LOCK_FIT_NOT);  /* entered at a frame it does not have */
    CHECK(lock_fit(runnable, 0, 5, &holding) == LOCK_FIT);      /* frames not taken */
}

static void digest_of(const char *text, size_t repeat, char out[65]) {
    sha256 h;
    sha256_init(&h);
    for (size_t i = 0; i < repeat; i++) {
        sha256_update(&h, text, strlen(text));
    }
    sha256_hex(&h, out);
}

static void test_base64_json(void) {
    sink_buffer b;
    const uint8_t bytes[] = { 0xCA, 0xFE, 0xBA, 0xBE, 0x00 };
    const char *expected[] = { "\"\"", "\"yg==\"", "\"yv4=\"", "\"yv66\"", "\"yv66vg==\"", "\"yv66vgA=\"" };
    for (size_t n = 0; n <= sizeof bytes; n++) {
        start(&b);
        base64_write_json(&writer, bytes, n);
        json_flush(&writer);
        CHECK(strcmp(b.data, expected[n]) == 0);
        uint8_t back[8];
        long len = base64_decode(b.data + 1, b.len - 2, back, sizeof back);
        CHECK(len == (long)n && memcmp(back, bytes, n) == 0);
        free(b.data);
    }
    uint8_t out[4];
    CHECK(base64_decode("yv66vg==", 8, out, 3) == -1);   /* does not fit */
    CHECK(base64_decode("yv6", 3, out, sizeof out) == -1); /* not a multiple of 4 */
    CHECK(base64_decode("y=66", 4, out, sizeof out) == -1);
    CHECK(base64_decode("yv=6", 4, out, sizeof out) == -1);
    CHECK(base64_decode("yv6!", 4, out, sizeof out) == -1);
}

static void test_latency_histogram(void) {
    /* every bucket's bounds meet the next one's, and a value falls in the bucket whose bounds hold it */
    for (int bucket = 0; bucket + 1 < LATENCY_BUCKETS; bucket++) {
        CHECK(latency_bucket_high(bucket) == latency_bucket_low(bucket + 1));
        CHECK(latency_bucket(latency_bucket_low(bucket)) == bucket);
        CHECK(latency_bucket(latency_bucket_high(bucket) - 1) == bucket);
        uint64_t low = latency_bucket_low(bucket);
        uint64_t width = latency_bucket_high(bucket) - low;
        CHECK(low < 64 ? width == 1 : width * 64 <= low); /* at most 1/64 of its lower bound wide */
    }
    CHECK(latency_bucket(UINT64_MAX) == LATENCY_BUCKETS - 1);
    CHECK(latency_bucket((uint64_t)1 << 41) == LATENCY_BUCKETS - 1);
    latency_histogram *h = malloc(sizeof *h);
    latency_reset(h);
    latency_record(h, 1000000, 0);
    latency_record(h, 20000000, 1);
    latency_record(h, 7, 0);
    CHECK(h->calls == 3 && h->errors == 1 && h->total_nanos == 21000007 && h->max_nanos == 20000000 && h->min_nanos == 7);
    CHECK(h->counts[7] == 1 && h->counts[latency_bucket(1000000)] == 1);
    free(h);
}

static void test_sha256(void) {
    char hex[65];
    digest_of("", 1, hex);
    CHECK(strcmp(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855") == 0);
    digest_of("abc", 1, hex);
    CHECK(strcmp(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad") == 0);
    /* 56 bytes: the padding needs a block of its own */
    digest_of("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 1, hex);
    CHECK(strcmp(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1") == 0);
    /* a million bytes fed in pieces that straddle blocks */
    digest_of("aaaaaaaaaaaaaaaaaaaaaaaaa", 40000, hex);
    CHECK(strcmp(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0") == 0);
}

static int base64_is(const char *text, const char *expected) {
    char out[64];
    size_t n = base64_encode((const unsigned char *)text, strlen(text), out);
    return n == base64_encoded_size(strlen(text)) && n == strlen(expected) && memcmp(out, expected, n) == 0;
}

static void test_base64(void) {
    /* RFC 4648's test vectors: no padding, one and two padding characters */
    CHECK(base64_is("", ""));
    CHECK(base64_is("f", "Zg=="));
    CHECK(base64_is("fo", "Zm8="));
    CHECK(base64_is("foo", "Zm9v"));
    CHECK(base64_is("foob", "Zm9vYg=="));
    CHECK(base64_is("fooba", "Zm9vYmE="));
    CHECK(base64_is("foobar", "Zm9vYmFy"));
    CHECK(base64_is("\xff\xfe\xfd", "//79"));
}

typedef struct {
    char lines[8][32];
    int count;
} seen_lines;

static void remember_line(void *ctx, const char *line, size_t len) {
    seen_lines *s = ctx;
    if (s->count < 8 && len < sizeof s->lines[0]) {
        memcpy(s->lines[s->count], line, len);
        s->lines[s->count][len] = '\0';
    }
    s->count++;
}

static void test_chunk_lines(void) {
    char buf[8];
    seen_lines seen = { .count = 0 };
    chunk_lines c;
    chunk_lines_init(&c, buf, sizeof buf, remember_line, &seen);
    chunk_lines_feed(&c, "a;b 1\nc;", strlen("a;b 1\nc;"));
    chunk_lines_feed(&c, "d 22", strlen("d 22"));
    chunk_lines_feed(&c, "\n\nthis line is too long 3\nx 4", strlen("\n\nthis line is too long 3\nx 4"));
    chunk_lines_finish(&c);
    CHECK(seen.count == 3);
    CHECK(strcmp(seen.lines[0], "a;b 1") == 0);
    CHECK(strcmp(seen.lines[1], "c;d 22") == 0);
    CHECK(strcmp(seen.lines[2], "x 4") == 0);
    CHECK(c.dropped == 1);
    /* a line exactly as long as the buffer fits */
    seen.count = 0;
    chunk_lines_init(&c, buf, sizeof buf, remember_line, &seen);
    chunk_lines_feed(&c, "abcdefgh\n", strlen("abcdefgh\n"));
    CHECK(seen.count == 1 && strcmp(seen.lines[0], "abcdefgh") == 0 && c.dropped == 0);
}

static void add_lines(stack_counts *t, const char *const *lines, size_t n) {
    for (size_t i = 0; i < n; i++) {
        stack_counts_add_line(t, lines[i], strlen(lines[i]));
    }
}

static void test_stack_counts(void) {
    stack_counts before, after, gained;
    stack_counts_init(&before);
    stack_counts_init(&after);
    stack_counts_init(&gained);
    const char *const first[] = { "[VM Thread tid=7];a;b 3", "[VM Thread tid=7];a;c 1", "no count", "x;y 12z" };
    const char *const second[] = { "[VM Thread tid=7];a;b 5", "[VM Thread tid=7];a;c 1", "[VM Thread tid=7];d 2" };
    add_lines(&before, first, 4);
    CHECK(before.count == 2);
    add_lines(&after, second, 3);
    stack_counts_add_gain(&gained, &before, &after);
    CHECK(gained.count == 2);
    CHECK(stack_counts_of(&gained, "[VM Thread tid=7];a;b", strlen("[VM Thread tid=7];a;b")) == 2);
    CHECK(stack_counts_of(&gained, "[VM Thread tid=7];d", strlen("[VM Thread tid=7];d")) == 2);
    CHECK(stack_counts_of(&gained, "[VM Thread tid=7];a;c", strlen("[VM Thread tid=7];a;c")) == 0);
    /* gains over several windows add up */
    stack_counts_add_gain(&gained, &before, &after);
    CHECK(stack_counts_of(&gained, "[VM Thread tid=7];d", strlen("[VM Thread tid=7];d")) == 4 && gained.lost == 0);
    stack_counts_clear(&before);
    stack_counts_clear(&after);
    stack_counts_clear(&gained);
    CHECK(gained.count == 0 && gained.items == NULL);
}

static void test_safepoint_log(void) {
    log_line l;
    const char *jdk17 = "[1796319915596ms][3213576036ns] Safepoint \"G1CollectForAllocation\", Time since last: 6647120 ns, "
                        "Reaching safepoint: 3837 ns, Cleanup: 30714 ns, At safepoint: 8787285 ns, Total: 8821836 ns";
    CHECK(safepoint_log_parse(jdk17, strlen(jdk17), &l) == LOG_LINE_SAFEPOINT);
    CHECK(l.millis == 1796319915596LL && l.uptime_nanos == 3213576036LL && strcmp(l.operation, "G1CollectForAllocation") == 0);
    CHECK(l.since_last_nanos == 6647120 && l.reaching_nanos == 3837 && l.cleanup_nanos == 30714);
    CHECK(l.at_safepoint_nanos == 8787285 && l.total_nanos == 8821836 && l.leaving_nanos == -1 && l.threads_runnable == -1);
    const char *jdk25 = "[1796320012880ms][274863774ns] Safepoint \"G1CollectForAllocation\", Time since last: 198808596 ns, "
                        "Reaching safepoint: 8073 ns, At safepoint: 9391166 ns, Leaving safepoint: 9882 ns, Total: 9409121 ns, "
                        "Threads: 0 runnable, 10 total";
    CHECK(safepoint_log_parse(jdk25, strlen(jdk25), &l) == LOG_LINE_SAFEPOINT);
    CHECK(l.cleanup_nanos == -1 && l.leaving_nanos == 9882 && l.total_nanos == 9409121 && l.threads_runnable == 0);
    const char *gc = "[1796319915595ms][3211804779ns] GC(82) Pause Young (Normal) (G1 Evacuation Pause) 199M->199M(256M) 7.025ms";
    CHECK(safepoint_log_parse(gc, strlen(gc), &l) == LOG_LINE_GC_PAUSE);
    CHECK(l.gc_id == 82 && strcmp(l.gc, "Pause Young (Normal) (G1 Evacuation Pause) 199M->199M(256M) 7.025ms") == 0);
    const char *zgc17 = "[1796389881468ms][235639335ns] GC(0) Pause Mark Start 0.011ms";
    CHECK(safepoint_log_parse(zgc17, strlen(zgc17), &l) == LOG_LINE_GC_PAUSE && l.gc_id == 0 && strcmp(l.gc, "Pause Mark Start 0.011ms") == 0);
    const char *zgc25 = "[1796389884664ms][186647921ns] GC(12) Y: Pause Mark Start (Major) 0.054ms";
    CHECK(safepoint_log_parse(zgc25, strlen(zgc25), &l) == LOG_LINE_GC_PAUSE && l.gc_id == 12);
    CHECK(strcmp(l.gc, "Y: Pause Mark Start (Major) 0.054ms") == 0);
    const char *zgc25_old = "[1796389884685ms][207635387ns] GC(0) O: Pause Mark End 0.026ms";
    CHECK(safepoint_log_parse(zgc25_old, strlen(zgc25_old), &l) == LOG_LINE_GC_PAUSE && strcmp(l.gc, "O: Pause Mark End 0.026ms") == 0);
    const char *zgc25_phase = "[1796389884669ms][191849814ns] GC(0) Y: Concurrent Mark 4.942ms";
    CHECK(safepoint_log_parse(zgc25_phase, strlen(zgc25_phase), &l) == LOG_LINE_OTHER);
    const char *cycle = "[1796319915595ms][3211849902ns] GC(83) Concurrent Mark Cycle";
    CHECK(safepoint_log_parse(cycle, strlen(cycle), &l) == LOG_LINE_OTHER);
    /* cut short, no total: a safepoint line not read */
    CHECK(safepoint_log_parse(jdk17, 120, &l) == LOG_LINE_UNREAD);
    /* JDK 11's three lines */
    const char *since = "[1796334543548ms][3123597927ns] Application time: 0.4965928 seconds";
    CHECK(safepoint_log_parse(since, strlen(since), &l) == LOG_LINE_SINCE_LAST && l.since_last_nanos == 496592800);
    const char *entering = "[1796334543548ms][3123641966ns] Entering safepoint region: G1CollectForAllocation";
    CHECK(safepoint_log_parse(entering, strlen(entering), &l) == LOG_LINE_ENTERING && strcmp(l.operation, "G1CollectForAllocation") == 0);
    const char *leaving = "[1796334543657ms][3232388425ns] Leaving safepoint region";
    CHECK(safepoint_log_parse(leaving, strlen(leaving), &l) == LOG_LINE_OTHER);
    const char *jdk11 = "[1796334543657ms][3232391628ns] Total time for which application threads were stopped: 0.1087597 seconds, "
                        "Stopping threads took: 0.0000151 seconds";
    CHECK(safepoint_log_parse(jdk11, strlen(jdk11), &l) == LOG_LINE_STOPPED);
    CHECK(l.millis == 1796334543657LL && l.uptime_nanos == 3232391628LL && l.total_nanos == 108759700 && l.reaching_nanos == 15100);
    CHECK(l.at_safepoint_nanos == -1 && l.cleanup_nanos == -1 && l.since_last_nanos == -1 && l.threads_runnable == -1);
    CHECK(safepoint_log_parse(jdk11, strlen(jdk11) - 8, &l) == LOG_LINE_UNREAD);
    const char *long_fraction = "[1ms][2ns] Application time: 1.0000000001 seconds";
    CHECK(safepoint_log_parse(long_fraction, strlen(long_fraction), &l) == LOG_LINE_UNREAD);
    const char *trigger = "[1ms][2ns] Trigger: Learning 1 of 5. Free (45855K) is below initial threshold (45875K)";
    CHECK(safepoint_log_parse(trigger, strlen(trigger), &l) == LOG_LINE_OTHER);
    const char *huge = "[1ms][2ns] Safepoint \"X\", Reaching safepoint: 99999999999999999999 ns, At safepoint: 1 ns, Total: 1 ns";
    CHECK(safepoint_log_parse(huge, strlen(huge), &l) == LOG_LINE_UNREAD);
    CHECK(safepoint_log_parse("", 0, &l) == LOG_LINE_OTHER);
}

/* Opens base/sub with trusted_directory_open: the descriptor (closed) or -1, the reason in why. */
static int trusted(const char *base, const char *sub, char *why, size_t why_size) {
    char path[512];
    snprintf(path, sizeof path, "%s%s", base, sub);
    why[0] = '\0';
    int fd = trusted_directory_open(path, why, why_size);
    if (fd >= 0) {
        close(fd);
    }
    return fd;
}

static void test_trusted_directory(void) {
    char base[] = "/tmp/trusted-XXXXXX";
    char why[1024];
    char path[512];
    CHECK(mkdtemp(base) != NULL);
    const char *made[] = { "/open", "/group", "/sticky", "/sticky/mine" };
    const mode_t modes[] = { 0777, 0770, 01777, 0700 };
    for (size_t i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "%s%s", base, made[i]);
        CHECK(mkdir(path, 0700) == 0 && chmod(path, modes[i]) == 0);
    }
    snprintf(path, sizeof path, "%s/link", base);
    CHECK(symlink(base, path) == 0);
    snprintf(path, sizeof path, "%s/file", base);
    FILE *file = fopen(path, "w");
    CHECK(file != NULL && fclose(file) == 0);

    CHECK(trusted(base, "", why, sizeof why) >= 0);
    CHECK(trusted(base, "/", why, sizeof why) >= 0);
    CHECK(trusted(base, "/sticky/mine", why, sizeof why) >= 0);   /* a sticky directory on the way, as /tmp */
    CHECK(trusted(base, "/sticky", why, sizeof why) < 0 && strstr(why, "sticky can be written by anyone (mode 1777)") != NULL);
    CHECK(trusted(base, "/open", why, sizeof why) < 0 && strstr(why, "open can be written by anyone") != NULL);
    CHECK(trusted(base, "/group", why, sizeof why) < 0 && strstr(why, "group can be written by its group") != NULL);
    CHECK(trusted(base, "/link", why, sizeof why) < 0 && strstr(why, "link is a symbolic link") != NULL);
    CHECK(trusted(base, "/link/sticky/mine", why, sizeof why) < 0 && strstr(why, "link is a symbolic link") != NULL);
    CHECK(trusted(base, "/file", why, sizeof why) < 0 && strstr(why, "file is not a directory") != NULL);
    CHECK(trusted(base, "/missing", why, sizeof why) < 0 && strstr(why, "missing: No such file or directory") != NULL);
    CHECK(trusted(base, "/sticky/../sticky/mine", why, sizeof why) < 0 && strstr(why, "without . or ..") != NULL);
    CHECK(trusted("", "relative", why, sizeof why) < 0 && strstr(why, "not an absolute path") != NULL);
    if (geteuid() == 0) {
        snprintf(path, sizeof path, "%s/sticky/hers", base);
        CHECK(mkdir(path, 0700) == 0 && chown(path, 12345, 12345) == 0);
        CHECK(trusted(base, "/sticky/hers", why, sizeof why) < 0 && strstr(why, "hers belongs to uid 12345") != NULL);
        CHECK(rmdir(path) == 0);
    }
    const char *removed[] = { "/sticky/mine", "/sticky", "/group", "/open" };
    for (size_t i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "%s%s", base, removed[i]);
        CHECK(rmdir(path) == 0);
    }
    snprintf(path, sizeof path, "%s/link", base);
    CHECK(unlink(path) == 0);
    snprintf(path, sizeof path, "%s/file", base);
    CHECK(unlink(path) == 0);
    CHECK(rmdir(base) == 0);
}

int main(void) {
    test_stack_counts();
    test_collection_ledger();
    test_mutf8();
    test_json_structure();
    test_json_escaping();
    test_json_numbers_and_fragments();
    test_json_streams_large_output();
    test_request_valid();
    test_request_invalid();
    test_thread_state();
    test_stack_table();
    test_name_table();
    test_sample_weight();
    test_perf_map_symbols();
    test_perf_map_file();
    test_code_list_parse();
    test_method_index();
    test_stack_tree();
    test_native_ids();
    test_vm_structs();
    test_own_memory();
    test_big_block();
    test_lock_owners();
    test_task_stat();
    test_task_stat_threads();
    test_lock_fit();
    test_sha256();
    test_base64();
    test_base64_json();
    test_latency_histogram();
    test_chunk_lines();
    test_safepoint_log();
    test_trusted_directory();
    printf("native: %d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
