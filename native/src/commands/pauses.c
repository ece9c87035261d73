/* `pauses`: every stop-the-world pause while the session runs, as the JVM itself logs it.
 *
 * HotSpot logs each safepoint when it ends (-Xlog:safepoint: the VM operation's name, the time to
 * reach the safepoint, the time at it, the total) and each collector pause (-Xlog:gc: its GC id and
 * cause). Unified logging can be given a new output while the JVM runs (the VM.log diagnostic
 * command, as `jcmd VM.log` does), and an output is a file the JVM opens by name: here the write
 * end of a pipe of the agent's own, /proc/self/fd/N (HotSpot does not rotate a FIFO). So the agent
 * writes no file, and sees exactly the lines -Xlog:safepoint would show, each pause once, without
 * polling. A thread of its own (a plain pthread: no JNI, no JVMTI, never one of the target's Java
 * threads) reads the pipe at once and keeps the pauses; the pipe's 1 MiB is there so that the
 * JVM's VM thread, which writes the line, never waits for it.
 *
 * Every path out takes the output away again (VM.log what=all=off deletes an output that logs
 * nothing); the pipe is read until the JVM closes it. Should the JVM refuse to take it away, the
 * read end is closed: the JVM's writes then fail (EPIPE; HotSpot ignores SIGPIPE) instead of
 * filling a pipe nobody reads. The counters behind HotspotRuntimeMBean (heap.c) give totals only;
 * JFR's safepoint events need a recording on disk; the log is the one source that is per pause.
 *
 * Which threads held a safepoint up the log does not say. With "library" (async-profiler's, as
 * `profile` takes it) the session also runs async-profiler's time-to-safepoint mode: CPU samples
 * taken only from the moment the VM thread asks for a safepoint to the moment the last thread is
 * stopped (its `ttsp`: SafepointSynchronize::begin to RuntimeService::record_safepoint_synchronized);
 * the threads still running then are the ones being waited for. Its JFR output (profiler_recording.h)
 * has each sample's time and each such window (profiler.Window), so the CLI tells which safepoint
 * each sample held up; clock=monotonic, so that async-profiler does not load the JDK's JFR classes
 * into the target for the frequency of the CPU's time-stamp counter. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "answer.h"
#include "diagnostic_command.h"
#include "profiler_library.h"
#include "profiler_recording.h"
#include "safepoint_log.h"
#include "session.h"
#include "vm_flags.h"

#define PAUSES_MAX 50000
#define PIPE_BYTES (1 << 20)
#define LINE_BYTES 1024
#define READ_CHUNK 16384
#define POLL_MILLIS 100
#define VM_LOG_MAX_ANSWER (256 * 1024)
#define VM_LOG_TIMEOUT_SECONDS 10
#define DRAIN_MILLIS 2000
#define ERROR_MAX 320
#define LATE_INTERVAL_NANOS 1000000
#define LATE_START "start,event=cpu,interval=1000000,ttsp,clock=monotonic,jfr,file=/proc/self/fd/%d,quiet,loglevel=none"
/* A recording past this is not sent: a sample is some 20 bytes, and there is one per millisecond
 * of CPU a thread runs while a safepoint waits for it. */
#define LATE_RECORDING_MAX_BYTES (256LL * 1024 * 1024)

typedef struct {
    int64_t end_millis;
    int64_t end_uptime_nanos;
    int64_t since_last_nanos;
    int64_t reaching_nanos;
    int64_t cleanup_nanos;
    int64_t at_safepoint_nanos;
    int64_t leaving_nanos;
    int64_t total_nanos;
    int64_t threads_runnable;
    int64_t gc_id;          /* -1: no collector logged a pause inside it */
    char *gc;               /* the collector's line after "GC(id) ", or NULL */
    char operation[SAFEPOINT_LOG_OPERATION_MAX];
} pause_record;

static struct {
    session_state run;
    pthread_mutex_t lock;   /* guards pauses, count, dropped, the reader's counters */
    int read_fd;
    int write_fd;           /* kept open until the output is gone: its name never means another file */
    char output[48];        /* the output's name as VM.log lists it: file=/proc/self/fd/N */
    pthread_t reader;
    int reader_started;
    int stop_reading;       /* atomic */
    int reader_done;        /* atomic */
    int saw_end;            /* the JVM closed the pipe */
    int pipe_bytes;
    pause_record *pauses;
    size_t count;
    size_t cap;
    uint64_t dropped;
    uint64_t cut_lines;     /* longer than LINE_BYTES: not read */
    uint64_t unread_lines;  /* about safepoints, in a form not read */
    char entering[SAFEPOINT_LOG_OPERATION_MAX]; /* JDK 11: the operation of the safepoint whose end comes next, or "" */
    int64_t since_last_nanos;                   /* JDK 11: the "Application time" logged before it, or -1 */
    log_line pending_gc;    /* the last collector pause, until the safepoint it ran in ends */
    int has_pending_gc;
    int64_t started_millis;
    int64_t stopped_millis;
    int output_removed;
    char remove_error[ERROR_MAX];
    int profiling;          /* async-profiler's ttsp mode runs */
    int recording_fd;       /* the memfd async-profiler writes its JFR into, or -1 */
    struct stat recording_made;  /* its fstat as made: the file recording_fd must still name */
    /* Its size at each step, -1 when unknown (the stop: not run), and the first step at which
     * recording_fd named another file, or NULL: an empty recording says where its bytes went. */
    int64_t bytes_after_start;
    int64_t bytes_after_stop;
    const char *replaced_at;
    char stop_error[ERROR_MAX]; /* async-profiler's answer to the session's stop, or "" when it stopped */
    int run_not_ours;       /* at the window's end async-profiler no longer wrote the recording: not stopped */
} session = { .lock = PTHREAD_MUTEX_INITIALIZER, .read_fd = -1, .write_fd = -1, .recording_fd = -1 };

static int64_t wall_millis(void) {
    struct timeval tv;
    gettimeofday(&tv, NULL); /* the clock of HotSpot's timemillis decoration */
    return (int64_t)tv.tv_sec * 1000 + tv.tv_usec / 1000;
}

static void keep_pause(const log_line *l) {
    pthread_mutex_lock(&session.lock);
    if (session.count == session.cap) {
        size_t cap = session.cap == 0 ? 256 : session.cap * 2;
        pause_record *grown = cap > PAUSES_MAX ? NULL : realloc(session.pauses, cap * sizeof *grown);
        if (grown == NULL) {
            session.dropped++;
            pthread_mutex_unlock(&session.lock);
            return;
        }
        session.pauses = grown;
        session.cap = cap;
    }
    pause_record *p = &session.pauses[session.count++];
    *p = (pause_record){ l->millis, l->uptime_nanos, l->since_last_nanos, l->reaching_nanos, l->cleanup_nanos,
                         l->at_safepoint_nanos, l->leaving_nanos, l->total_nanos, l->threads_runnable, -1, NULL, "" };
    memcpy(p->operation, l->operation, sizeof p->operation);
    /* a collector logs its pause while at the safepoint, so before the safepoint's own line */
    const log_line *gc = &session.pending_gc;
    if (session.has_pending_gc && gc->uptime_nanos <= l->uptime_nanos && gc->uptime_nanos >= l->uptime_nanos - l->total_nanos) {
        p->gc_id = gc->gc_id;
        p->gc = strdup(gc->gc);
    }
    session.has_pending_gc = 0;
    pthread_mutex_unlock(&session.lock);
}

static void free_pauses(void) {
    for (size_t i = 0; i < session.count; i++) {
        free(session.pauses[i].gc);
    }
    free(session.pauses);
    session.pauses = NULL;
    session.count = 0;
    session.cap = 0;
}

static void take_line(const char *line, size_t len) {
    log_line parsed;
    switch (safepoint_log_parse(line, len, &parsed)) {
    case LOG_LINE_SAFEPOINT:
        keep_pause(&parsed);
        break;
    case LOG_LINE_GC_PAUSE:
        session.pending_gc = parsed;
        session.has_pending_gc = 1;
        break;
    case LOG_LINE_SINCE_LAST:
        session.since_last_nanos = parsed.since_last_nanos;
        break;
    case LOG_LINE_ENTERING:
        memcpy(session.entering, parsed.operation, sizeof session.entering);
        break;
    case LOG_LINE_STOPPED:
        if (session.entering[0] == '\0') { /* it began before the output was added: its operation was not logged to it */
            session.unread_lines++;
            break;
        }
        memcpy(parsed.operation, session.entering, sizeof parsed.operation);
        parsed.since_last_nanos = session.since_last_nanos;
        keep_pause(&parsed);
        session.entering[0] = '\0';
        session.since_last_nanos = -1;
        break;
    case LOG_LINE_UNREAD:
        session.unread_lines++;
        break;
    case LOG_LINE_OTHER: /* the collectors' lines that are not pauses */
        break;
    }
}

/* The reader: lines from the pipe until the JVM closes it, or until told to stop. */
static void *read_log(void *unused) {
    (void)unused;
    (void)prctl(PR_SET_NAME, "jvmti-cli pause"); /* as /proc shows it; pthread_setname_np is newer than the agent's glibc baseline */
    static char line[LINE_BYTES];
    static char chunk[READ_CHUNK];
    size_t used = 0;
    int cut = 0;
    while (!__atomic_load_n(&session.stop_reading, __ATOMIC_SEQ_CST)) {
        struct pollfd ready = { .fd = session.read_fd, .events = POLLIN };
        int polled = poll(&ready, 1, POLL_MILLIS);
        if (polled < 0 && errno != EINTR) {
            break;
        }
        if (polled <= 0) {
            continue;
        }
        ssize_t n = read(session.read_fd, chunk, sizeof chunk);
        if (n == 0) {
            session.saw_end = 1;
            break;
        }
        if (n < 0) {
            if (errno == EINTR || errno == EAGAIN) {
                continue;
            }
            break;
        }
        for (ssize_t i = 0; i < n; i++) {
            if (chunk[i] == '\n') {
                if (cut) {
                    session.cut_lines++;
                } else {
                    take_line(line, used);
                }
                used = 0;
                cut = 0;
            } else if (used < sizeof line) {
                line[used++] = chunk[i];
            } else {
                cut = 1;
            }
        }
    }
    __atomic_store_n(&session.reader_done, 1, __ATOMIC_SEQ_CST);
    return NULL;
}

/* Runs `VM.log <arguments>` for our output; 0, or -1 with error set. */
static int vm_log(const char *arguments, char *error, size_t error_size) {
    char command_line[256];
    snprintf(command_line, sizeof command_line, "VM.log output=%s %s", session.output, arguments);
    size_t length;
    char *answer = diagnostic_command_run(command_line, VM_LOG_MAX_ANSWER, VM_LOG_TIMEOUT_SECONDS, error, error_size, &length);
    if (answer == NULL) {
        return -1;
    }
    free(answer);
    return 0;
}

/* Whether `VM.log list` shows our output: 1, 0, or -1 with error set. */
static int output_listed(char *error, size_t error_size) {
    size_t length;
    char *list = diagnostic_command_run("VM.log list", VM_LOG_MAX_ANSWER, VM_LOG_TIMEOUT_SECONDS, error, error_size, &length);
    if (list == NULL) {
        return -1;
    }
    char entry[64];
    snprintf(entry, sizeof entry, " %s ", session.output); /* " #3: file=/proc/self/fd/12 all=off,..." */
    int listed = strstr(list, entry) != NULL;
    free(list);
    return listed;
}

static void stop_reader(void) {
    if (!session.reader_started) {
        return;
    }
    __atomic_store_n(&session.stop_reading, 1, __ATOMIC_SEQ_CST);
    (void)pthread_join(session.reader, NULL); /* bounded: it looks at stop_reading every POLL_MILLIS */
    session.reader_started = 0;
}

static void close_pipe_end(int *fd) {
    if (*fd >= 0) {
        close(*fd);
        *fd = -1;
    }
}

/* Takes the output away (when added), reads what the JVM wrote until it closed the pipe, stops the
 * reader and closes the pipe (also when the JVM kept the output: its writes then fail instead of
 * blocking). The output is named while the agent's own write end keeps its name /proc/self/fd/N
 * ours: VM.log opens an output it does not know, and N must never name another file. */
static void remove_output(int added) {
    char error[ERROR_MAX] = "";
    int removed = !added || (vm_log("what=all=off", error, sizeof error) == 0 && output_listed(error, sizeof error) == 0);
    if (!removed && error[0] == '\0') {
        snprintf(error, sizeof error, "VM.log still lists %s", session.output);
    }
    session.output_removed = removed;
    snprintf(session.remove_error, sizeof session.remove_error, "%s", removed ? "" : error);
    close_pipe_end(&session.write_fd);
    for (int waited = 0; removed && waited < DRAIN_MILLIS && !__atomic_load_n(&session.reader_done, __ATOMIC_SEQ_CST); waited++) {
        struct timespec pause = { 0, 1000 * 1000 };
        nanosleep(&pause, NULL);
    }
    stop_reader();
    close_pipe_end(&session.read_fd);
}

static void wants(jvmtiCapabilities *c) {
    (void)c;
}

static void add_callbacks(jvmtiEventCallbacks *c) {
    (void)c;
}

/* The recording's size after the step named, noting the first step at which its descriptor named
 * another file. */
static int64_t recording_step(const char *step) {
    int same;
    int64_t bytes = profiler_recording_bytes(session.recording_fd, &session.recording_made, &same);
    if (!same && session.replaced_at == NULL) {
        session.replaced_at = step;
    }
    return bytes;
}

/* With "library": async-profiler in its time-to-safepoint mode. 0, or -1 answered. */
static int start_late_threads(command_ctx *ctx) {
    const char *library = request_string(ctx->req, "library");
    char message[512];
    session.profiling = 0;
    session.run_not_ours = 0;
    session.stop_error[0] = '\0';
    if (library == NULL) {
        return 0;
    }
    if (profiler_library_load(library, message, sizeof message) != 0) {
        command_fail(ctx, "profiler_unavailable", message);
        return -1;
    }
    session.recording_fd = profiler_recording_create("jvmti-cli pauses");
    if (session.recording_fd < 0) {
        snprintf(message, sizeof message, "cannot make the recording's memory file: %s", strerror(errno));
        command_fail(ctx, "no_memory", message);
        return -1;
    }
    if (fstat(session.recording_fd, &session.recording_made) != 0) {
        snprintf(message, sizeof message, "cannot stat the recording's memory file: %s", strerror(errno));
        command_fail(ctx, "internal", message);
        close(session.recording_fd);
        session.recording_fd = -1;
        return -1;
    }
    session.replaced_at = NULL;
    session.bytes_after_stop = -1;
    char command[160];
    snprintf(command, sizeof command, LATE_START, session.recording_fd);
    const char *error = profiler_execute(ctx->jni, command, NULL);
    if (error != NULL) {
        snprintf(message, sizeof message, "async-profiler did not start in its time-to-safepoint mode: %s", error);
        command_fail(ctx, "profiler_failed", message);
        close(session.recording_fd);
        session.recording_fd = -1;
        return -1;
    }
    session.profiling = 1;
    session.bytes_after_start = recording_step("start");
    return 0;
}

/* ZGC logs its pauses under gc+phases only. The other collectors log theirs under gc, and under
 * gc+phases a line per phase of each pause (G1: five a young collection), written by the VM thread
 * inside the pause: asked for only where ZGC runs. */
static int zgc_runs(void) {
    unsigned char use_zgc = 0;
    return vm_flag_bytes("UseZGC", &use_zgc, sizeof use_zgc) == 0 && use_zgc != 0;
}

static int open_log(command_ctx *ctx) {
    char error[ERROR_MAX] = "";
    char message[ERROR_MAX + 64];
    int fds[2];
    session.dropped = 0;
    session.cut_lines = 0;
    session.unread_lines = 0;
    session.entering[0] = '\0';
    session.since_last_nanos = -1;
    session.has_pending_gc = 0;
    session.saw_end = 0;
    session.output_removed = 0;
    session.remove_error[0] = '\0';
    session.stop_reading = 0;
    session.reader_done = 0;
    if (pipe2(fds, O_CLOEXEC) != 0) {
        snprintf(message, sizeof message, "pipe: %s", strerror(errno));
        command_fail(ctx, "internal", message);
        return -1;
    }
    session.pipe_bytes = fcntl(fds[0], F_SETPIPE_SZ, PIPE_BYTES);
    if (session.pipe_bytes < 0) { /* over /proc/sys/fs/pipe-max-size for this user: the size it has */
        session.pipe_bytes = fcntl(fds[0], F_GETPIPE_SZ);
    }
    session.read_fd = fds[0];
    session.write_fd = fds[1];
    snprintf(session.output, sizeof session.output, "file=/proc/self/fd/%d", fds[1]);
    int err = pthread_create(&session.reader, NULL, read_log, NULL);
    if (err != 0) {
        close_pipe_end(&session.read_fd);
        close_pipe_end(&session.write_fd);
        snprintf(message, sizeof message, "pthread_create: %s", strerror(err));
        command_fail(ctx, "internal", message);
        return -1;
    }
    session.reader_started = 1;
    /* filecount=0: no rotation, which JDKs before 12 refuse for a file that is not a regular one */
    char arguments[160];
    snprintf(arguments, sizeof arguments, "what=safepoint=info,gc=info%s decorators=timemillis,uptimenanos output_options=filecount=0",
             zgc_runs() ? ",gc+phases=info" : "");
    int added = vm_log(arguments, error, sizeof error) == 0;
    int listed = added ? output_listed(error, sizeof error) : -1;
    if (listed != 1) {
        if (listed == 0) {
            snprintf(error, sizeof error, "VM.log did not add the output %s", session.output);
        }
        remove_output(listed != 0);
        free_pauses();
        snprintf(message, sizeof message, "cannot read the JVM's safepoint log: %s", error);
        command_fail(ctx, "log_unavailable", message);
        return -1;
    }
    if (start_late_threads(ctx) != 0) {
        remove_output(1);
        free_pauses();
        return -1;
    }
    session.started_millis = wall_millis();
    return 0;
}

static void quiesce(JNIEnv *jni) {
    session.stopped_millis = wall_millis();
    /* Anything that loads the same library (asprof, jcmd JVMTI.agent_load) drives the one
     * async-profiler: once something else has stopped this command's run, a run async-profiler has
     * now is someone else's, and is left running. Where that cannot be told, the command stops it:
     * its own run left sampling, with its breakpoints in the JVM's code, would be worse. */
    session.run_not_ours = session.profiling && profiler_recording_open_elsewhere(session.recording_fd) == 0;
    if (session.profiling && !session.run_not_ours) {
        /* it fails when something else stopped it between that look and now */
        const char *error = profiler_execute(jni, "stop,quiet,loglevel=none", NULL);
        snprintf(session.stop_error, sizeof session.stop_error, "%s", error == NULL ? "" : error);
        session.bytes_after_stop = recording_step("stop");
    }
    remove_output(1);
}

static void write_optional(json_writer *w, const char *key, int64_t value) {
    if (value >= 0) {
        json_field_int(w, key, value);
    }
}

/* async-profiler's recording of the threads that ran while the JVM was reaching its safepoints,
 * with the agent thread's OS thread id (its samples are the tool's), how the stop went, when
 * async-profiler last wrote the recording (its stop finishes it: the time it stopped sampling),
 * whether the command left async-profiler alone at the end because its run was no longer this one,
 * and the recording's size after async-profiler's start and after its stop. */
static void write_late_threads(command_ctx *ctx) {
    json_writer *w = ctx->out;
    json_begin_object_field(w, "lateThreads");
    json_field_cstring(w, "profiler", profiler_library_version());
    json_field_int(w, "intervalNanos", LATE_INTERVAL_NANOS);
    json_field_int(w, "agentTid", (int64_t)syscall(SYS_gettid));
    if (session.stop_error[0] == '\0') {
        json_field_null(w, "stopError");
    } else {
        json_field_cstring(w, "stopError", session.stop_error);
    }
    json_field_bool(w, "runNotOurs", session.run_not_ours);
    struct stat st;
    if (fstat(session.recording_fd, &st) == 0) {
        json_field_int(w, "recordingWrittenMillis", (int64_t)st.st_mtim.tv_sec * 1000 + st.st_mtim.tv_nsec / 1000000);
    }
    write_optional(w, "recordingBytesAfterStart", session.bytes_after_start);
    write_optional(w, "recordingBytesAfterStop", session.bytes_after_stop);
    (void)recording_step("read");
    if (session.replaced_at == NULL) {
        json_field_null(w, "recordingReplacedAt");
    } else {
        json_field_cstring(w, "recordingReplacedAt", session.replaced_at);
    }
    profiler_recording_write(w, session.recording_fd, LATE_RECORDING_MAX_BYTES);
    json_end_object(w);
}

static void write_started(json_writer *w) {
    json_begin_object(w);
    json_field_cstring(w, "logOutput", session.output);
    json_field_int(w, "startedMillis", session.started_millis);
    json_end_object(w);
}

static void write_report(command_ctx *ctx, jlong elapsed, int64_t gcs) {
    (void)gcs;
    json_writer *w = ctx->out;
    pthread_mutex_lock(&session.lock);
    command_result(ctx);
    json_begin_object(w);
    json_field_int(w, "durationNanos", elapsed);
    json_field_int(w, "startedMillis", session.started_millis);
    json_field_int(w, "stoppedMillis", session.stopped_millis);
    json_field_cstring(w, "logOutput", session.output);
    json_field_bool(w, "logRemoved", session.output_removed);
    if (!session.output_removed) {
        json_field_cstring(w, "logRemoveError", session.remove_error);
    }
    json_field_bool(w, "logClosedByJvm", session.saw_end);
    json_field_int(w, "pipeBytes", session.pipe_bytes);
    json_field_int(w, "dropped", (int64_t)session.dropped);
    json_field_int(w, "cutLines", (int64_t)session.cut_lines);
    json_field_int(w, "unreadLines", (int64_t)session.unread_lines);
    json_begin_array_field(w, "pauses");
    for (size_t i = 0; i < session.count; i++) {
        const pause_record *p = &session.pauses[i];
        /* The output is added before the window begins (and async-profiler starts) and taken away
         * after it ends (and async-profiler stops): a pause that ended outside it is not the window's,
         * and async-profiler may not have been sampling while it was reached. */
        if (p->end_millis < session.started_millis || p->end_millis > session.stopped_millis) {
            continue;
        }
        json_begin_object(w);
        json_field_cstring(w, "operation", p->operation);
        json_field_int(w, "endMillis", p->end_millis);
        json_field_int(w, "endUptimeNanos", p->end_uptime_nanos);
        write_optional(w, "sinceLastNanos", p->since_last_nanos);
        json_field_int(w, "reachingNanos", p->reaching_nanos);
        write_optional(w, "cleanupNanos", p->cleanup_nanos);
        write_optional(w, "atSafepointNanos", p->at_safepoint_nanos);
        write_optional(w, "leavingNanos", p->leaving_nanos);
        json_field_int(w, "totalNanos", p->total_nanos);
        write_optional(w, "threadsRunnable", p->threads_runnable);
        if (p->gc != NULL) {
            json_field_int(w, "gcId", p->gc_id);
            json_field_cstring(w, "gc", p->gc);
        }
        json_end_object(w);
    }
    json_end_array(w);
    if (session.profiling) {
        write_late_threads(ctx);
    }
    json_end_object(w);
    pthread_mutex_unlock(&session.lock);
}

static int close_log(void) {
    free_pauses();
    if (session.recording_fd >= 0) {
        close(session.recording_fd);
        session.recording_fd = -1;
    }
    session.profiling = 0;
    return 0;
}

static const session_engine engine = {
    .what = "pause recording",
    .lock_name = "jvmti-cli pauses",
    .capability = "none",
    .wants = wants,
    .events = NULL,
    .event_count = 0,
    .counts_gcs = 0,
    .callbacks = add_callbacks,
    .open = open_log,
    .quiesce = quiesce,
    .started = write_started,
    .report = write_report,
    .close = close_log,
    .state = &session.run,
};

void cmd_pauses_start(command_ctx *ctx) {
    session_start(&engine, ctx);
}

void cmd_pauses_stop(command_ctx *ctx) {
    session_stop(&engine, ctx);
}
