/* `profile.start` / `profile.stop`: CPU and wall-clock sampling by async-profiler
 * (profiler_library.h), a session engine (session.h) that needs no JVMTI event or capability of
 * ours. start loads the library on first use and starts async-profiler with one root frame per
 * thread; stop stops it and streams its collapsed stacks, annotated with each frame's kind
 * (_[0] interpreted, _[1] C1, _[j] JIT compiled, _[i] inlined, _[k] kernel), into the answer
 * line by line: nothing is written to the target's file system, and async-profiler's log is off
 * (the target's output is not ours to write to; its errors come back as answers). The answer
 * names the engine that ran, as async-profiler chooses it: for `cpu`, perf_events when the kernel
 * permits them, else ctimer (a POSIX CPU-time timer per thread), else the wall clock limited to
 * running threads.
 *
 * The tool's own work is told apart, for the CLI to leave out: the answer names the agent thread's
 * OS thread id, and keeps the VM thread's samples taken while one of the agent's own requests ran
 * (profile_own_work_begin/end around each request during a profile), with the GC workers' samples
 * in a class histogram's parallel walk: a dump of those stacks before and after the request, the
 * samples each stack gained in between added up. Which of them were the VM operations the request
 * asked for (not a collection the request waited for) is the CLI's to judge from their frames. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "answer.h"
#include "chunk_lines.h"
#include "profiler_library.h"
#include "events.h"
#include "session.h"
#include "stack_counts.h"

#define MIN_INTERVAL_NANOS 100000LL             /* 0.1 ms */
#define MAX_INTERVAL_NANOS 10000000000LL        /* 10 s */
#define DEFAULT_CPU_INTERVAL_NANOS 10000000LL   /* 10 ms */
#define DEFAULT_WALL_INTERVAL_NANOS 50000000LL  /* 50 ms */
/* Longer collapsed lines (stacks of thousands of frames) are dropped whole and counted. */
#define LINE_BUFFER_BYTES (256 * 1024)
#define LIST_BUFFER_BYTES 4096

static const char *const events[] = { "cpu", "wall", "itimer", "ctimer" };

static struct {
    session_state run;
    const char *event;
    const char *engine;
    int64_t interval;
    char *line_buffer;
    chunk_lines lines;
    json_writer *out;                       /* the answer the collapsed lines go to, during a dump */
    char list[LIST_BUFFER_BYTES];           /* async-profiler's `list` answer */
    size_t list_len;
    stack_counts vm_before;                 /* the VM thread's stacks when an own request began */
    stack_counts vm_after;                  /* ... and when it ended */
    stack_counts vm_in_own_work;            /* what its stacks gained between, over every request */
    int64_t own_requests;
    int64_t unread_requests;                /* requests whose window could not be read whole */
    int before_read;                        /* vm_before holds the whole dump */
    jlong own_nanos;
    jlong own_began;
} session;

/* async-profiler's dump, in the report's style, of the samples of the VM thread (include matches
 * the thread frame by the thread's name; HotSpot names its VM thread so) and of the GC workers'
 * share of a class histogram (HeapInspection's parallel walk). */
#define VM_THREAD_DUMP "dump,collapsed,ann,threads,include=VM Thread,include=ParHeapInspectTask::work,loglevel=none"
#define REPORT_DUMP "dump,collapsed,ann,threads,loglevel=none"

static void wants(jvmtiCapabilities *c) {
    (void)c;
}

static void add_callbacks(jvmtiEventCallbacks *c) {
    (void)c;
}

static int check(command_ctx *ctx) {
    const char *event = request_string(ctx->req, "event");
    session.event = NULL;
    for (size_t i = 0; i < sizeof events / sizeof events[0]; i++) {
        if (event == NULL ? i == 0 : strcmp(event, events[i]) == 0) {
            session.event = events[i];
        }
    }
    if (session.event == NULL) {
        command_fail(ctx, "bad_request", "event must be cpu, wall, itimer or ctimer");
        return -1;
    }
    int wall = strcmp(session.event, "wall") == 0;
    session.interval = request_int(ctx->req, "interval", wall ? DEFAULT_WALL_INTERVAL_NANOS : DEFAULT_CPU_INTERVAL_NANOS);
    if (session.interval < MIN_INTERVAL_NANOS || session.interval > MAX_INTERVAL_NANOS) {
        command_fail(ctx, "bad_request", "interval must be between 0.1 ms and 10 s (in nanoseconds)");
        return -1;
    }
    if (request_string(ctx->req, "library") == NULL) {
        command_fail(ctx, "bad_request", "missing \"library\": the path of the profiling library");
        return -1;
    }
    return 0;
}

static void keep_list(const char *buf, size_t size) {
    size_t room = sizeof session.list - 1 - session.list_len;
    size_t n = size < room ? size : room;
    memcpy(session.list + session.list_len, buf, n);
    session.list_len += n;
    session.list[session.list_len] = '\0';
}

/* The engine async-profiler runs for the event, by its own rule (Profiler::selectEngine): `cpu`
 * is perf_events when its `list` shows perf events, ctimer when it lists ctimer, else the wall
 * clock in CPU mode. */
static const char *engine_of(JNIEnv *jni, const char *event) {
    if (strcmp(event, "cpu") != 0) {
        return strcmp(event, "wall") == 0 ? "wall" : event;
    }
    session.list_len = 0;
    session.list[0] = '\0';
    if (profiler_execute(jni, "list,loglevel=none", keep_list) != NULL) {
        return NULL;
    }
    if (strstr(session.list, "\nPerf events:\n") != NULL) {
        return "perf_events";
    }
    return strstr(session.list, "\n  ctimer\n") != NULL ? "ctimer" : "wall (running threads only)";
}

static int open_profiler(command_ctx *ctx) {
    char message[512];
    if (profiler_library_load(request_string(ctx->req, "library"), message, sizeof message) != 0) {
        command_fail(ctx, "profiler_unavailable", message);
        return -1;
    }
    session.line_buffer = malloc(LINE_BUFFER_BYTES);
    if (session.line_buffer == NULL) {
        command_fail(ctx, "no_memory", "cannot allocate the profile's line buffer");
        return -1;
    }
    session.engine = engine_of(ctx->jni, session.event);
    char command[160];
    snprintf(command, sizeof command, "start,event=%s,interval=%lld,threads,quiet,loglevel=none", session.event,
             (long long)session.interval);
    const char *error = profiler_execute(ctx->jni, command, NULL);
    if (error != NULL) {
        snprintf(message, sizeof message, "async-profiler did not start: %s", error);
        command_fail(ctx, "profiler_failed", message);
        free(session.line_buffer);
        session.line_buffer = NULL;
        return -1;
    }
    return 0;
}

static void stop_profiler(JNIEnv *jni) {
    (void)profiler_execute(jni, "stop,quiet,loglevel=none", NULL);
}

static void write_line(void *ctx, const char *line, size_t len) {
    (void)ctx;
    json_string(session.out, line, len);
}

static void feed_lines(const char *buf, size_t size) {
    chunk_lines_feed(&session.lines, buf, size);
}

static void count_line(void *ctx, const char *line, size_t len) {
    stack_counts_add_line(ctx, line, len);
}

/* The samples so far of the VM thread and of the histogram's workers, per stack, into t; 0, or -1
 * when async-profiler could not dump them or a line was too long to read. */
static int read_vm_thread(JNIEnv *jni, stack_counts *t) {
    stack_counts_clear(t);
    chunk_lines_init(&session.lines, session.line_buffer, LINE_BUFFER_BYTES, count_line, t);
    const char *error = profiler_execute(jni, VM_THREAD_DUMP, feed_lines);
    chunk_lines_finish(&session.lines);
    return error == NULL && session.lines.dropped == 0 ? 0 : -1;
}

void profile_own_work_begin(JNIEnv *jni) {
    if (!session.run.running) {
        return;
    }
    session.own_began = events_now_nanos();
    session.before_read = read_vm_thread(jni, &session.vm_before) == 0;
}

void profile_own_work_end(JNIEnv *jni) {
    if (!session.run.running || session.own_began == 0) {
        return;
    }
    /* a stack one of the two dumps could not hold would be miscounted: its samples are lost instead */
    if (read_vm_thread(jni, &session.vm_after) == 0 && session.before_read && session.vm_before.lost == 0 && session.vm_after.lost == 0) {
        stack_counts_add_gain(&session.vm_in_own_work, &session.vm_before, &session.vm_after);
    } else {
        session.unread_requests++;
    }
    session.own_nanos += events_now_nanos() - session.own_began;
    session.own_requests++;
    session.own_began = 0;
    stack_counts_clear(&session.vm_before);
    stack_counts_clear(&session.vm_after);
}

static void write_own_work(json_writer *w) {
    json_begin_object_field(w, "ownWork");
    json_field_int(w, "agentTid", (int64_t)syscall(SYS_gettid));
    json_field_int(w, "requests", session.own_requests);
    json_field_int(w, "requestNanos", session.own_nanos);
    json_begin_array_field(w, "vmThreadStacks");
    for (size_t i = 0; i < session.vm_in_own_work.count; i++) {
        const stack_count *c = &session.vm_in_own_work.items[i];
        json_begin_object(w);
        json_field_string(w, "stack", c->stack, c->len);
        json_field_int(w, "samples", (int64_t)c->samples);
        json_end_object(w);
    }
    json_end_array(w);
    json_field_int(w, "lostSamples", (int64_t)session.vm_in_own_work.lost);
    json_field_int(w, "unreadRequests", session.unread_requests);
    json_end_object(w);
}

static void write_settings(json_writer *w) {
    json_field_cstring(w, "event", session.event);
    json_key(w, "engine");
    if (session.engine == NULL) {
        json_null(w);
    } else {
        json_cstring(w, session.engine);
    }
    json_field_int(w, "intervalNanos", session.interval);
    json_field_cstring(w, "profiler", profiler_library_version());
}

static void write_started(json_writer *w) {
    json_begin_object(w);
    write_settings(w);
    json_end_object(w);
}

static void write_report(command_ctx *ctx, jlong elapsed, int64_t gcs) {
    (void)gcs;
    json_writer *w = ctx->out;
    command_result(ctx);
    json_begin_object(w);
    write_settings(w);
    json_field_int(w, "durationNanos", elapsed);
    json_begin_array_field(w, "collapsed");
    session.out = w;
    chunk_lines_init(&session.lines, session.line_buffer, LINE_BUFFER_BYTES, write_line, NULL);
    const char *error = profiler_execute(ctx->jni, REPORT_DUMP, feed_lines);
    chunk_lines_finish(&session.lines);
    session.out = NULL;
    json_end_array(w);
    json_field_int(w, "droppedStacks", (int64_t)session.lines.dropped);
    write_own_work(w);
    if (error != NULL) {
        json_field_cstring(w, "error", error);
    }
    json_end_object(w);
}

static int close_profile(void) {
    stack_counts_clear(&session.vm_before);
    stack_counts_clear(&session.vm_after);
    stack_counts_clear(&session.vm_in_own_work);
    session.own_requests = 0;
    session.unread_requests = 0;
    session.own_nanos = 0;
    session.own_began = 0;
    free(session.line_buffer);
    session.line_buffer = NULL;
    return 0;
}

static const session_engine engine = {
    .what = "profiling",
    .lock_name = "jvmti-cli profile",
    .capability = "none",
    .wants = wants,
    .events = NULL,
    .event_count = 0,
    .counts_gcs = 0,
    .callbacks = add_callbacks,
    .check = check,
    .open = open_profiler,
    .quiesce = stop_profiler,
    .started = write_started,
    .report = write_report,
    .close = close_profile,
    .state = &session.run,
};

void cmd_profile_start(command_ctx *ctx) {
    session_start(&engine, ctx);
}

void cmd_profile_stop(command_ctx *ctx) {
    session_stop(&engine, ctx);
}
