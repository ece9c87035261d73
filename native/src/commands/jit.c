/* `jit`: the JVM's compiled code as it stands, and its perf map.
 *
 * CompiledMethodLoad, CompiledMethodUnload and DynamicCodeGenerated keep a table of the code
 * the JVM has now. At the start GenerateEvents replays the code compiled before: per the JVMTI
 * spec it returns only after the replayed events have been sent and processed, on the calling
 * (agent) thread; code compiled later arrives on the JVM's service thread. The callbacks resolve
 * the perf symbol at once (a few JVMTI calls; JIT events are not on application threads), copy
 * the inlined methods out of the JVMTI_CMLR_INLINE_INFO compile info (it is only valid during the
 * callback), and append under a raw monitor. Without --follow the events are turned off and the
 * capability given back when the answer is written; with it they stay on, every new piece of code
 * is appended to the perf map, and unloads rewrite it (at most once a second, and at detach).
 * Each piece of code's tier and OSR bci come from the JVM's own code list (code_list.h). The table
 * is a session (session.h) that no connection owns: only a request without --follow, or detach,
 * ends it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent.h" /* jvmti.h first: jvmticmlr.h needs its types */
#include <jvmticmlr.h>

#include "answer.h"
#include "code_list.h"
#include "method_table.h"
#include "perf_map.h"
#include "session.h"

#define JIT_MAX_ENTRIES (256 * 1024)
#define JIT_MAX_INLINED 128
#define JIT_SYMBOL_MAX 512
#define JIT_REWRITE_NANOS 1000000000LL

typedef struct {
    uint64_t start;
    uint64_t size;
    uint64_t seq;           /* order of arrival: a later entry at the same address wins */
    jmethodID method;       /* NULL for a stub */
    char *symbol;           /* perf symbol (methods) or the stub's name */
    jmethodID *inlined;
    int inlined_count;
    int inlined_partial;    /* the list misses some: more than JIT_MAX_INLINED, or no memory */
} code_entry;

static struct {
    session_state run;
    int following;
    code_entry *entries;
    size_t count;
    size_t cap;
    uint64_t seq;
    uint64_t dropped;
    uint64_t unloaded;
    perf_map map;
    int map_dirty;
    jlong map_written;
} jit;

static void free_entry(code_entry *e) {
    free(e->symbol);
    free(e->inlined);
    e->symbol = NULL;
    e->inlined = NULL;
}

/* Appends under the lock; takes ownership of symbol and inlined (freed if it does not fit). */
static code_entry *append(uint64_t start, uint64_t size, jmethodID method, char *symbol, jmethodID *inlined, int inlined_count,
                          int inlined_partial) {
    if (jit.count == jit.cap) {
        size_t cap = jit.cap == 0 ? 4096 : jit.cap * 2;
        code_entry *grown = cap > JIT_MAX_ENTRIES ? NULL : realloc(jit.entries, cap * sizeof *grown);
        if (grown == NULL) {
            jit.dropped++;
            free(symbol);
            free(inlined);
            return NULL;
        }
        jit.entries = grown;
        jit.cap = cap;
    }
    code_entry *e = &jit.entries[jit.count++];
    *e = (code_entry){ start, size, ++jit.seq, method, symbol, inlined, inlined_count, inlined_partial };
    return e;
}

static int by_start_then_seq(const void *a, const void *b) {
    const code_entry *x = *(code_entry *const *)a;
    const code_entry *y = *(code_entry *const *)b;
    if (x->start != y->start) {
        return x->start < y->start ? -1 : 1;
    }
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The live code, sorted by address, one entry per address (the latest); under the lock. */
static code_entry **sorted_unique(size_t *count) {
    code_entry **order = malloc((jit.count + 1) * sizeof *order);
    if (order == NULL) {
        return NULL;
    }
    for (size_t i = 0; i < jit.count; i++) {
        order[i] = &jit.entries[i];
    }
    qsort(order, jit.count, sizeof *order, by_start_then_seq);
    size_t n = 0;
    for (size_t i = 0; i < jit.count; i++) {
        if (i + 1 < jit.count && order[i + 1]->start == order[i]->start) {
            continue;
        }
        order[n++] = order[i];
    }
    *count = n;
    return order;
}

/* Writes the whole map anew from the table; under the lock. 0 or -1 (jit.map.error). */
static int rewrite_map(void) {
    char tmp_path[96];
    int fd;
    size_t n;
    code_entry **order = sorted_unique(&n);
    if (order == NULL) {
        snprintf(jit.map.error, sizeof jit.map.error, "out of memory");
        return -1;
    }
    if (perf_map_begin(&jit.map, &fd, tmp_path, sizeof tmp_path) != 0) {
        free(order);
        return -1;
    }
    static char buf[65536];
    size_t used = 0;
    int failed = 0;
    for (size_t i = 0; i < n && !failed; i++) {
        if (sizeof buf - used < JIT_SYMBOL_MAX + 64) {
            failed = perf_map_write(fd, buf, used) != 0;
            used = 0;
        }
        used += perf_map_line(buf + used, sizeof buf - used, order[i]->start, order[i]->size, order[i]->symbol);
    }
    failed = failed || perf_map_write(fd, buf, used) != 0;
    free(order);
    if (failed) {
        snprintf(jit.map.error, sizeof jit.map.error, "cannot write the perf map");
        close(fd);
        unlink(tmp_path);
        return -1;
    }
    if (perf_map_commit(&jit.map, fd, tmp_path) != 0) {
        return -1;
    }
    jit.map_dirty = 0;
    jit.map_written = events_now_nanos();
    return 0;
}

/* In --follow: a new piece of code goes to the end of the map; pending unloads rewrite it. */
static void follow_added(const code_entry *e) {
    if (!jit.following || jit.map.fd < 0) {
        return;
    }
    if (jit.map_dirty && events_now_nanos() - jit.map_written >= JIT_REWRITE_NANOS) {
        (void)rewrite_map();
        return;
    }
    if (e != NULL) {
        char line[JIT_SYMBOL_MAX + 64];
        size_t len = perf_map_line(line, sizeof line, e->start, e->size, e->symbol);
        (void)perf_map_write(jit.map.fd, line, len);
    }
}

static int collect_inlined(const void *compile_info, jmethodID self, jmethodID *out, int *partial) {
    int count = 0;
    for (const jvmtiCompiledMethodLoadRecordHeader *r = compile_info; r != NULL; r = r->next) {
        if (r->kind != JVMTI_CMLR_INLINE_INFO) {
            continue;
        }
        const jvmtiCompiledMethodLoadInlineRecord *record = (const jvmtiCompiledMethodLoadInlineRecord *)r;
        for (jint p = 0; p < record->numpcs && record->pcinfo != NULL; p++) {
            const PCStackInfo *pc = &record->pcinfo[p];
            for (jint f = 0; f < pc->numstackframes && pc->methods != NULL; f++) {
                jmethodID m = pc->methods[f];
                int seen = m == NULL || m == self;
                for (int k = 0; k < count && !seen; k++) {
                    seen = out[k] == m;
                }
                if (!seen && count < JIT_MAX_INLINED) {
                    out[count++] = m;
                } else if (!seen) {
                    *partial = 1;
                }
            }
        }
    }
    return count;
}

static char *method_symbol(jvmtiEnv *jvmti, jmethodID method) {
    jclass declaring = NULL;
    char *class_sig = NULL;
    char *name = NULL;
    char symbol[JIT_SYMBOL_MAX];
    JNIEnv *jni = events_jni();
    if ((*jvmti)->GetMethodDeclaringClass(jvmti, method, &declaring) == JVMTI_ERROR_NONE) {
        if ((*jvmti)->GetClassSignature(jvmti, declaring, &class_sig, NULL) != JVMTI_ERROR_NONE) {
            class_sig = NULL;
        }
        if (jni != NULL) {
            (*jni)->DeleteLocalRef(jni, declaring);
        }
    }
    if ((*jvmti)->GetMethodName(jvmti, method, &name, NULL, NULL) != JVMTI_ERROR_NONE) {
        name = NULL;
    }
    perf_map_symbol(class_sig, name, symbol, sizeof symbol);
    if (class_sig != NULL) (*jvmti)->Deallocate(jvmti, (unsigned char *)class_sig);
    if (name != NULL) (*jvmti)->Deallocate(jvmti, (unsigned char *)name);
    return strdup(symbol);
}

static void JNICALL on_load(jvmtiEnv *jvmti, jmethodID method, jint code_size, const void *code_addr, jint map_length,
                            const jvmtiAddrLocationMap *map, const void *compile_info) {
    (void)map_length;
    (void)map;
    if (!gate_enter(&jit.run.gate)) {
        return;
    }
    jmethodID found[JIT_MAX_INLINED];
    int partial = 0;
    int inlined_count = collect_inlined(compile_info, method, found, &partial);
    jmethodID *inlined = NULL;
    if (inlined_count > 0 && (inlined = malloc((size_t)inlined_count * sizeof *inlined)) != NULL) {
        memcpy(inlined, found, (size_t)inlined_count * sizeof *inlined);
    } else {
        partial |= inlined_count > 0;
        inlined_count = 0;
    }
    char *symbol = method_symbol(jvmti, method);
    if ((*jvmti)->RawMonitorEnter(jvmti, jit.run.lock) == JVMTI_ERROR_NONE) {
        if (symbol == NULL) {
            jit.dropped++;
            free(inlined);
        } else {
            follow_added(append((uint64_t)(uintptr_t)code_addr, (uint64_t)code_size, method, symbol, inlined, inlined_count, partial));
        }
        (*jvmti)->RawMonitorExit(jvmti, jit.run.lock);
    } else {
        free(symbol);
        free(inlined);
    }
    gate_leave(&jit.run.gate);
}

static void JNICALL on_unload(jvmtiEnv *jvmti, jmethodID method, const void *code_addr) {
    if (!gate_enter(&jit.run.gate)) {
        return;
    }
    if ((*jvmti)->RawMonitorEnter(jvmti, jit.run.lock) == JVMTI_ERROR_NONE) {
        for (size_t i = jit.count; i-- > 0;) {
            code_entry *e = &jit.entries[i];
            if (e->method == method && e->start == (uint64_t)(uintptr_t)code_addr) {
                free_entry(e);
                *e = jit.entries[--jit.count];
                jit.unloaded++;
                jit.map_dirty = 1;
                follow_added(NULL);
                break;
            }
        }
        (*jvmti)->RawMonitorExit(jvmti, jit.run.lock);
    }
    gate_leave(&jit.run.gate);
}

static void JNICALL on_stub(jvmtiEnv *jvmti, const char *name, const void *address, jint length) {
    if (!gate_enter(&jit.run.gate)) {
        return;
    }
    char *symbol = strdup(name == NULL ? "?" : name);
    if ((*jvmti)->RawMonitorEnter(jvmti, jit.run.lock) == JVMTI_ERROR_NONE) {
        if (symbol == NULL) {
            jit.dropped++;
        } else {
            follow_added(append((uint64_t)(uintptr_t)address, (uint64_t)length, NULL, symbol, NULL, 0, 0));
        }
        (*jvmti)->RawMonitorExit(jvmti, jit.run.lock);
    } else {
        free(symbol);
    }
    gate_leave(&jit.run.gate);
}

/* At detach, a --follow map is written as the code stands before the table goes. */
static int close_table(void) {
    if (jit.following && jit.map_dirty) {
        (void)rewrite_map();
    }
    for (size_t i = 0; i < jit.count; i++) {
        free_entry(&jit.entries[i]);
    }
    free(jit.entries);
    jit.entries = NULL;
    jit.count = jit.cap = 0;
    perf_map_close(&jit.map);
    jit.following = 0;
    return 0;
}

static int open_table(command_ctx *ctx) {
    (void)ctx;
    char path[64];
    perf_map_path(path, sizeof path);
    perf_map_init(&jit.map, path);
    jit.seq = jit.dropped = jit.unloaded = 0;
    jit.map_dirty = 0;
    return 0;
}

/* The code compiled before the events were on, replayed into the table. */
static int replay(command_ctx *ctx) {
    jvmtiEnv *jvmti = the_agent.jvmti;
    jvmtiError err = (*jvmti)->GenerateEvents(jvmti, JVMTI_EVENT_DYNAMIC_CODE_GENERATED);
    if (err != JVMTI_ERROR_NONE) {
        command_fail_jvmti(ctx, "GenerateEvents(DynamicCodeGenerated)", err);
        return -1;
    }
    if ((err = (*jvmti)->GenerateEvents(jvmti, JVMTI_EVENT_COMPILED_METHOD_LOAD)) != JVMTI_ERROR_NONE) {
        command_fail_jvmti(ctx, "GenerateEvents(CompiledMethodLoad)", err);
        return -1;
    }
    return 0;
}

static void add_callbacks(jvmtiEventCallbacks *callbacks) {
    callbacks->CompiledMethodLoad = on_load;
    callbacks->CompiledMethodUnload = on_unload;
    callbacks->DynamicCodeGenerated = on_stub;
}

static void wants(jvmtiCapabilities *c) {
    c->can_generate_compiled_method_load_events = 1;
}

static const session_event events[] = {
    { JVMTI_EVENT_COMPILED_METHOD_LOAD, "CompiledMethodLoad" },
    { JVMTI_EVENT_COMPILED_METHOD_UNLOAD, "CompiledMethodUnload" },
    { JVMTI_EVENT_DYNAMIC_CODE_GENERATED, "DynamicCodeGenerated" },
};

/* Answered by cmd_jit itself, so no start or stop answer; with --follow no connection owns it. */
static const session_engine engine = {
    .what = "compiled code tracking",
    .lock_name = "jvmti-cli jit",
    .capability = "can_generate_compiled_method_load_events",
    .wants = wants,
    .events = events,
    .event_count = sizeof events / sizeof events[0],
    .callbacks = add_callbacks,
    .open = open_table,
    .armed = replay,
    .close = close_table,
    .state = &jit.run,
};

typedef struct {
    uint64_t start;
    uint64_t size;
    jmethodID method;
    char *name;             /* stubs */
    jmethodID *inlined;
    int inlined_count;
    int inlined_partial;
} snapshot_entry;

/* A copy of the live code to write without holding the lock; under the lock. */
static snapshot_entry *snapshot(size_t *count) {
    size_t n;
    code_entry **order = sorted_unique(&n);
    snapshot_entry *copy = order == NULL ? NULL : calloc(n + 1, sizeof *copy);
    for (size_t i = 0; copy != NULL && i < n; i++) {
        const code_entry *e = order[i];
        copy[i].start = e->start;
        copy[i].size = e->size;
        copy[i].method = e->method;
        copy[i].name = e->method == NULL ? strdup(e->symbol) : NULL;
        copy[i].inlined_partial = e->inlined_partial;
        if (e->inlined_count > 0 && (copy[i].inlined = malloc((size_t)e->inlined_count * sizeof(jmethodID))) != NULL) {
            memcpy(copy[i].inlined, e->inlined, (size_t)e->inlined_count * sizeof(jmethodID));
            copy[i].inlined_count = e->inlined_count;
        } else {
            copy[i].inlined_partial |= e->inlined_count > 0;
        }
    }
    free(order);
    *count = copy == NULL ? 0 : n;
    return copy;
}

static void write_tier(json_writer *w, const code_list *tiers, const snapshot_entry *code) {
    const code_list_entry *t = code_list_find(tiers, code->start, code->start + code->size);
    if (t == NULL) {
        return;
    }
    json_field_int(w, "compileId", t->compile_id);
    json_field_int(w, "level", t->level);
    json_key(w, "entryBci");
    if (t->entry_bci == CODE_LIST_BCI_UNKNOWN) {
        json_null(w);
    } else {
        json_int(w, t->entry_bci);
    }
}

static void write_listing(command_ctx *ctx, snapshot_entry *code, size_t n, uint64_t dropped, uint64_t unloaded, int wrote_map,
                          const code_list *tiers) {
    json_writer *w = ctx->out;
    method_table methods;
    int have_methods = method_table_init(&methods, JIT_MAX_ENTRIES) == 0;
    command_result(ctx);
    json_begin_object(w);
    json_field_int(w, "pid", getpid());
    json_key(w, "perfMap");
    if (wrote_map) {
        json_cstring(w, jit.map.path);
    } else {
        json_null(w);
    }
    json_field_bool(w, "following", jit.following);
    json_field_int(w, "dropped", (int64_t)dropped);
    json_field_int(w, "unloaded", (int64_t)unloaded);
    json_key(w, "codeListError");
    if (tiers->entries == NULL) {
        json_cstring(w, tiers->error);
    } else {
        json_null(w);
    }
    json_begin_array_field(w, "compiled");
    for (size_t i = 0; have_methods && i < n; i++) {
        if (code[i].method == NULL) {
            continue;
        }
        json_begin_object(w);
        json_field_int(w, "method", method_table_add(&methods, code[i].method));
        json_field_int(w, "start", (int64_t)code[i].start);
        json_field_int(w, "size", (int64_t)code[i].size);
        write_tier(w, tiers, &code[i]);
        json_begin_array_field(w, "inlined");
        for (int k = 0; k < code[i].inlined_count; k++) {
            json_int(w, method_table_add(&methods, code[i].inlined[k]));
        }
        json_end_array(w);
        json_field_bool(w, "inlinedPartial", code[i].inlined_partial);
        json_end_object(w);
    }
    json_end_array(w);
    json_begin_array_field(w, "stubs");
    for (size_t i = 0; i < n; i++) {
        if (code[i].method != NULL) {
            continue;
        }
        json_begin_object(w);
        json_field_mutf8(w, "name", code[i].name);
        json_field_int(w, "start", (int64_t)code[i].start);
        json_field_int(w, "size", (int64_t)code[i].size);
        json_end_object(w);
    }
    json_end_array(w);
    json_key(w, "methods");
    method_table_finish(have_methods ? &methods : NULL, ctx->jni, w);
    json_end_object(w);
}

void cmd_jit(command_ctx *ctx) {
    jvmtiEnv *jvmti = the_agent.jvmti;
    int want_map = request_bool(ctx->req, "perfMap", 0);
    int follow = request_bool(ctx->req, "follow", 0);
    if (follow && !want_map) {
        command_fail(ctx, "bad_request", "follow keeps the perf map current: it needs perfMap");
        return;
    }
    if (!jit.run.running && session_begin(&engine, ctx, SESSION_UNOWNED) != 0) {
        return;
    }
    char error[sizeof jit.map.error] = "";
    size_t n = 0;
    snapshot_entry *code = NULL;
    uint64_t dropped = 0, unloaded = 0;
    if ((*jvmti)->RawMonitorEnter(jvmti, jit.run.lock) == JVMTI_ERROR_NONE) {
        if (want_map && rewrite_map() != 0) {
            memcpy(error, jit.map.error, sizeof error);
        } else if (follow) {
            jit.following = 1;
        }
        code = snapshot(&n);
        dropped = jit.dropped;
        unloaded = jit.unloaded;
        (*jvmti)->RawMonitorExit(jvmti, jit.run.lock);
    }
    if (!jit.following) {
        session_end(&engine, ctx->jni);
    }
    if (error[0] != '\0') {
        command_fail(ctx, "perf_map", error);
    } else if (code == NULL) {
        command_fail(ctx, "no_memory", "cannot copy the code table");
    } else {
        code_list tiers; /* asked after the snapshot: code compiled since is in it, and not looked up */
        (void)code_list_read(&tiers);
        write_listing(ctx, code, n, dropped, unloaded, want_map, &tiers);
        code_list_free(&tiers);
    }
    for (size_t i = 0; code != NULL && i < n; i++) {
        free(code[i].name);
        free(code[i].inlined);
    }
    free(code);
}
