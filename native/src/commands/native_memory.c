/* `nativemem.start` / `nativemem.stop` (`memory --native`): where native memory went over a
 * window, from two sources that see it differently.
 * - async-profiler's nativemem mode (profiler_library.h): every malloc, calloc, realloc,
 *   posix_memalign and aligned_alloc call through a library's import table, with its stack, and
 *   every free, each with its address. Only its JFR output keeps the frees, so the recording goes
 *   to a memfd the agent made (async-profiler opens /proc/self/fd/N): nothing touches the target's
 *   file system. At stop the recording is streamed to the CLI in base64 pieces, and the CLI matches
 *   frees to allocations by address.
 * - the JVM's native memory tracking, when the JVM runs with it: VM.native_memory baseline at
 *   start, summary.diff at stop (diagnostic_command.h), as text for the CLI to read.
 * The recording is bounded while the window runs: a thread of the agent's looks at its size every
 * WATCH_MILLIS and stops async-profiler once it passes the bound the request gives; the answer
 * says when.
 * - glibc's arenas at start and at stop (malloc_arenas.h): what the process's mappings say, read
 *   without taking malloc's locks.
 * The answer names the agent thread's OS thread id: its own allocations are the tool's, not the
 * target's. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "agent.h"
#include "answer.h"
#include "diagnostic_command.h"
#include "events.h"
#include "jni_util.h"
#include "malloc_arenas.h"
#include "profiler_library.h"
#include "profiler_recording.h"
#include "session.h"

#define NMT_MAX_ANSWER (1u << 20)
#define NMT_TIMEOUT_SECONDS 10
/* async-profiler's `metrics` answer: a dozen short lines. */
#define METRICS_BYTES 2048
/* A recording larger than this is not sent (the CLI would need as much again to read it). */
#define MAX_RECORDING_BYTES (1024LL * 1024 * 1024)
#define MIN_RECORDING_BYTES (64LL * 1024)
#define DEFAULT_RECORDING_BYTES (256LL * 1024 * 1024)
#define WATCH_MILLIS 50

static struct {
    session_state run;
    int recording_fd;               /* the memfd async-profiler writes its JFR into, or -1 */
    char *baseline;                 /* VM.native_memory baseline's text, or NULL with baseline_error */
    char baseline_error[256];
    char metrics[METRICS_BYTES];
    size_t metrics_len;
    malloc_arenas arenas_at_start;
    const char *arenas_error;       /* why they could not be read, or NULL */
    int64_t max_recording;          /* the bound the watcher keeps the recording to */
    int64_t started_nanos;
    int64_t capped_after;           /* when the watcher stopped async-profiler, from the start; 0: it did not */
    jthread watcher;
    long watcher_tid;               /* its OS thread id: its allocations are the tool's */
    int watching;                   /* under session.run.lock */
    int watcher_done;
} session = { .recording_fd = -1 };

static void wants(jvmtiCapabilities *c) {
    (void)c;
}

static void add_callbacks(jvmtiEventCallbacks *c) {
    (void)c;
}

static int check(command_ctx *ctx) {
    if (request_string(ctx->req, "library") == NULL) {
        command_fail(ctx, "bad_request", "missing \"library\": the path of the profiling library");
        return -1;
    }
    session.max_recording = request_int(ctx->req, "maxRecordingBytes", DEFAULT_RECORDING_BYTES);
    if (session.max_recording < MIN_RECORDING_BYTES || session.max_recording > MAX_RECORDING_BYTES) {
        command_fail(ctx, "bad_request", "maxRecordingBytes must be between 64 KiB and 1 GiB");
        return -1;
    }
    return 0;
}

/* Stops async-profiler once the recording passes its bound; ends when told, or then. */
static void JNICALL watch_recording(jvmtiEnv *jvmti, JNIEnv *jni, void *arg) {
    (void)arg;
    (*jvmti)->RawMonitorEnter(jvmti, session.run.lock);
    session.watcher_tid = (long)syscall(SYS_gettid);
    while (session.watching) {
        (*jvmti)->RawMonitorWait(jvmti, session.run.lock, WATCH_MILLIS);
        struct stat st;
        if (session.watching && fstat(session.recording_fd, &st) == 0 && st.st_size > session.max_recording) {
            (void)profiler_execute(jni, "stop,quiet,loglevel=none", NULL);
            session.capped_after = events_now_nanos() - session.started_nanos;
            session.watching = 0;
        }
    }
    (*jvmti)->RawMonitorExit(jvmti, session.run.lock);
    __atomic_store_n(&session.watcher_done, 1, __ATOMIC_SEQ_CST);
}

static int start_watcher(JNIEnv *jni) {
    session.capped_after = 0;
    session.watching = 1;
    session.watcher_done = 0;
    session.watcher_tid = 0;
    session.started_nanos = events_now_nanos();
    session.watcher = jni_new_thread(jni, "jvmti-cli memory --native");
    if (session.watcher == NULL || (*the_agent.jvmti)->RunAgentThread(the_agent.jvmti, session.watcher, watch_recording, NULL,
                                                                      JVMTI_THREAD_NORM_PRIORITY) != JVMTI_ERROR_NONE) {
        session.watching = 0;
        if (session.watcher != NULL) {
            (*jni)->DeleteGlobalRef(jni, session.watcher);
            session.watcher = NULL;
        }
        return -1;
    }
    return 0;
}

/* Tells the watcher to end and waits for it (at most 5 s: it then keeps the memory file it reads). */
static int stop_watcher(JNIEnv *jni) {
    jvmtiEnv *jvmti = the_agent.jvmti;
    if (session.watcher == NULL) {
        return 0;
    }
    (*jvmti)->RawMonitorEnter(jvmti, session.run.lock);
    session.watching = 0;
    (*jvmti)->RawMonitorNotifyAll(jvmti, session.run.lock);
    (*jvmti)->RawMonitorExit(jvmti, session.run.lock);
    for (int waited = 0; !__atomic_load_n(&session.watcher_done, __ATOMIC_SEQ_CST); waited++) {
        if (waited == 5000) {
            return -1;
        }
        struct timespec pause = { 0, 1000 * 1000 };
        nanosleep(&pause, NULL);
    }
    if (jni != NULL) {
        (*jni)->DeleteGlobalRef(jni, session.watcher);
    }
    session.watcher = NULL;
    return 0;
}

static void close_recording(void) {
    if (session.recording_fd >= 0) {
        close(session.recording_fd);
        session.recording_fd = -1;
    }
    free(session.baseline);
    session.baseline = NULL;
}

static int open_native_memory(command_ctx *ctx) {
    char message[512];
    if (profiler_library_load(request_string(ctx->req, "library"), message, sizeof message) != 0) {
        command_fail(ctx, "profiler_unavailable", message);
        return -1;
    }
    session.recording_fd = profiler_recording_create("jvmti-cli nativemem");
    if (session.recording_fd < 0) {
        snprintf(message, sizeof message, "cannot make the recording's memory file: %s", strerror(errno));
        command_fail(ctx, "no_memory", message);
        close_recording();
        return -1;
    }
    session.arenas_error = NULL;
    (void)malloc_arenas_read(&session.arenas_at_start, &session.arenas_error);
    size_t length = 0;
    session.baseline_error[0] = '\0';
    session.baseline = diagnostic_command_run("VM.native_memory baseline", NMT_MAX_ANSWER, NMT_TIMEOUT_SECONDS,
                                              session.baseline_error, sizeof session.baseline_error, &length);
    char command[160];
    snprintf(command, sizeof command, "start,nativemem=0,jfr,file=/proc/self/fd/%d,quiet,loglevel=none", session.recording_fd);
    const char *error = profiler_execute(ctx->jni, command, NULL);
    if (error != NULL) {
        snprintf(message, sizeof message, "async-profiler did not start: %s", error);
        command_fail(ctx, "profiler_failed", message);
        close_recording();
        return -1;
    }
    if (start_watcher(ctx->jni) != 0) {
        (void)profiler_execute(ctx->jni, "stop,quiet,loglevel=none", NULL);
        command_fail(ctx, "internal", "cannot start the thread that bounds the recording");
        close_recording();
        return -1;
    }
    return 0;
}

static void stop_profiler(JNIEnv *jni) {
    (void)stop_watcher(jni);
    if (session.capped_after == 0) {
        (void)profiler_execute(jni, "stop,quiet,loglevel=none", NULL);
    }
}

static void write_started(json_writer *w) {
    json_begin_object(w);
    json_field_cstring(w, "profiler", profiler_library_version());
    json_end_object(w);
}

static void write_native_memory_diff(json_writer *w) {
    if (session.baseline == NULL) {
        json_field_cstring(w, "nativeMemoryTrackingError", session.baseline_error);
        return;
    }
    json_field_cstring(w, "nativeMemoryBaseline", session.baseline);
    char error[256] = "";
    size_t length = 0;
    char *diff = diagnostic_command_run("VM.native_memory summary.diff", NMT_MAX_ANSWER, NMT_TIMEOUT_SECONDS, error, sizeof error, &length);
    if (diff == NULL) {
        json_field_cstring(w, "nativeMemoryTrackingError", error);
        return;
    }
    json_field_string(w, "nativeMemoryDiff", diff, length);
    free(diff);
}

static void keep_metrics(const char *buf, size_t size) {
    size_t room = sizeof session.metrics - 1 - session.metrics_len;
    size_t n = size < room ? size : room;
    memcpy(session.metrics + session.metrics_len, buf, n);
    session.metrics_len += n;
    session.metrics[session.metrics_len] = '\0';
}

/* The allocations async-profiler dropped (samples_skipped_total of its metrics): it tries three of
 * its buffers' locks and drops the event when all are taken. Frees it drops are not counted. */
static void write_skipped(command_ctx *ctx) {
    session.metrics_len = 0;
    session.metrics[0] = '\0';
    const char *key = "samples_skipped_total ";
    const char *at = profiler_execute(ctx->jni, "metrics,loglevel=none", keep_metrics) == NULL ? strstr(session.metrics, key) : NULL;
    if (at != NULL) {
        json_field_int(ctx->out, "skippedAllocations", strtoll(at + strlen(key), NULL, 10));
    }
}

static void write_arenas(json_writer *w) {
    malloc_arenas at_end;
    if (session.arenas_error == NULL) {
        (void)malloc_arenas_read(&at_end, &session.arenas_error);
    }
    if (session.arenas_error != NULL) {
        json_field_cstring(w, "arenasError", session.arenas_error);
        return;
    }
    json_begin_object_field(w, "arenasAtStart");
    malloc_arenas_write(w, &session.arenas_at_start);
    json_end_object(w);
    json_begin_object_field(w, "arenasAtEnd");
    malloc_arenas_write(w, &at_end);
    json_end_object(w);
}

static void write_report(command_ctx *ctx, jlong elapsed, int64_t gcs) {
    (void)gcs;
    json_writer *w = ctx->out;
    command_result(ctx);
    json_begin_object(w);
    json_field_cstring(w, "profiler", profiler_library_version());
    json_field_int(w, "durationNanos", elapsed);
    json_field_int(w, "agentTid", (int64_t)syscall(SYS_gettid));
    if (session.watcher_tid != 0) {
        json_field_int(w, "watcherTid", session.watcher_tid);
    }
    json_field_int(w, "maxRecordingBytes", session.max_recording);
    if (session.capped_after > 0) {
        json_field_int(w, "recordingCappedAfterNanos", session.capped_after);
    }
    write_skipped(ctx);
    write_arenas(w);
    write_native_memory_diff(w);
    profiler_recording_write(w, session.recording_fd, MAX_RECORDING_BYTES);
    json_end_object(w);
}

static int close_native_memory(void) {
    if (session.watcher != NULL) {
        return -1; /* it did not end: it still reads the memory file, and may stop async-profiler */
    }
    close_recording();
    return 0;
}

static const session_engine engine = {
    .what = "native memory profiling",
    .lock_name = "jvmti-cli nativemem",
    .capability = "none",
    .wants = wants,
    .events = NULL,
    .event_count = 0,
    .counts_gcs = 0,
    .callbacks = add_callbacks,
    .check = check,
    .open = open_native_memory,
    .quiesce = stop_profiler,
    .started = write_started,
    .report = write_report,
    .close = close_native_memory,
    .state = &session.run,
};

void cmd_nativemem_start(command_ctx *ctx) {
    session_start(&engine, ctx);
}

void cmd_nativemem_stop(command_ctx *ctx) {
    session_stop(&engine, ctx);
}
