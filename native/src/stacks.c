/* The `stacks` command: threads with their frames and lock facts. Frames come from a per-thread
 * GetStackTrace (a short handshake per thread, never a global safepoint); the snapshot is therefore
 * not atomic across threads, which is what makes it gentle on the target. */
#include <stdlib.h>
#include <time.h>

#include "agent.h"
#include "commands.h"
#include "frames.h"
#include "locks.h"
#include "native_ids.h"
#include "thread_set.h"

#define DEFAULT_MAX_DEPTH 8192
#define LIMIT_MAX_DEPTH 65536

static int64_t now_millis(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void write_frames(command_ctx *ctx, jthread thread, jvmtiFrameInfo *frames, jint max_depth) {
    jint count = 0;
    jvmtiError err = (*the_agent.jvmti)->GetStackTrace(the_agent.jvmti, thread, 0, max_depth, frames, &count);
    json_key(ctx->out, "frames");
    frames_write(ctx->out, ctx->jni, frames, err == JVMTI_ERROR_NONE ? count : 0);
    if (err == JVMTI_ERROR_NONE && count == max_depth) {
        json_key(ctx->out, "truncated");
        json_bool(ctx->out, 1);
    }
}

void cmd_stacks(command_ctx *ctx) {
    int64_t requested_depth = request_int(ctx->req, "maxDepth", DEFAULT_MAX_DEPTH);
    int want_frames = request_bool(ctx->req, "frames", 1);
    int want_owned = request_bool(ctx->req, "owned", 1);
    if (requested_depth < 1 || requested_depth > LIMIT_MAX_DEPTH) {
        command_fail(ctx, "bad_request", "maxDepth must be between 1 and 65536");
        return;
    }
    jint max_depth = (jint)requested_depth;
    jvmtiFrameInfo *frames = want_frames ? malloc((size_t)max_depth * sizeof *frames) : NULL;
    if (want_frames && frames == NULL) {
        command_fail(ctx, "out_of_memory", "cannot allocate room for the frames");
        return;
    }
    thread_set set;
    jvmtiError err = thread_set_collect(ctx->jni, ctx->req, &set);
    if (err != JVMTI_ERROR_NONE) {
        command_fail_jvmti(ctx, "GetAllThreads", err);
        free(frames);
        return;
    }
    int lock_status = locks_collect(ctx->jni, set.subjects, set.count, max_depth, want_owned, set.locks);
    task_table tasks;
    (void)task_table_load(&tasks); /* on failure every nid is 0, "not matched" */
    json_writer *w = ctx->out;
    command_result(ctx);
    json_begin_object(w);
    json_key(w, "time");
    json_int(w, now_millis());
    json_key(w, "lockSource");
    json_cstring(w, locks_source());
    json_key(w, "lockFactsComplete");
    json_bool(w, lock_status == 0);
    json_key(w, "threads");
    json_begin_array(w);
    for (size_t i = 0; i < set.count; i++) {
        json_begin_object(w);
        json_key(w, "thread");
        json_begin_object(w);
        thread_facts_write(w, &set.facts[i], thread_facts_nid(&tasks, &set.facts[i]));
        json_end_object(w);
        if (want_frames) {
            write_frames(ctx, set.threads[i], frames, max_depth);
        }
        locks_write(w, &set.locks[i], want_owned);
        json_end_object(w);
    }
    json_end_array(w);
    json_end_object(w);
    task_table_free(&tasks);
    thread_set_free(ctx->jni, &set);
    free(frames);
}
