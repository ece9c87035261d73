/* The `stacks` command: threads with their frames and lock facts. Frames come from a per-thread
 * GetStackTrace (a short handshake per thread, never a global safepoint); the snapshot is therefore
 * not atomic across threads, which is what makes it gentle on the target. Frames are taken first,
 * for every thread, then lock facts, which after a live attach are read from the stack at a
 * safepoint: a thread whose frames cannot hold a monitor (see frames_monitor_depth) is not asked
 * for the monitors it owns, and a waiting one only as deep as its deepest frame that may hold one.
 * Frames go on the wire as [method, line] into a frame table, "methods", written after the threads
 * once every method of the answer has its index: each distinct method is sent once. */
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "commands.h"
#include "frames.h"
#include "locks.h"
#include "native_ids.h"
#include "thread_set.h"


/* One thread's frames, copied out of the scratch buffer. */
typedef struct {
    jvmtiFrameInfo *frames; /* malloc'd, count of them */
    jint count;
    int truncated;
} taken_frames;

/* The thread's frames, copied out of scratch (max_depth of room); none when it has ended. */
static void take_frames(jthread thread, taken_frames *taken, jvmtiFrameInfo *scratch, jint max_depth) {
    jint count = 0;
    if ((*the_agent.jvmti)->GetStackTrace(the_agent.jvmti, thread, 0, max_depth, scratch, &count) != JVMTI_ERROR_NONE
            || count <= 0) {
        return;
    }
    taken->frames = malloc((size_t)count * sizeof *scratch);
    if (taken->frames != NULL) {
        memcpy(taken->frames, scratch, (size_t)count * sizeof *scratch);
        taken->count = count;
        taken->truncated = count == max_depth;
    }
}

/* How deep lock collection must look for the monitors this thread owns (see lock_subject). A
 * thread that runs may have moved since its frames were taken: it is looked at whole. */
static jint owned_depth_of(JNIEnv *jni, const taken_frames *taken, jint state) {
    if (taken->truncated || taken->count == 0 || (state & JVMTI_THREAD_STATE_RUNNABLE) != 0) {
        return 0; /* deeper than asked, no Java frames (or none could be had), or moving: all of it */
    }
    return frames_monitor_depth(jni, taken->frames, taken->count, 0);
}

static void write_frames(command_ctx *ctx, method_index *methods, const taken_frames *taken) {
    json_key(ctx->out, "frames");
    frames_write_refs(ctx->out, ctx->jni, methods, taken->frames, taken->count);
    if (taken->truncated) {
        json_key(ctx->out, "truncated");
        json_bool(ctx->out, 1);
    }
}

void cmd_stacks(command_ctx *ctx) {
    int64_t requested_depth = request_int(ctx->req, "maxDepth", FRAMES_DEFAULT_DEPTH);
    int want_frames = request_bool(ctx->req, "frames", 1);
    int want_owned = request_bool(ctx->req, "owned", 1);
    if (requested_depth < 1 || requested_depth > FRAMES_DEPTH_LIMIT) {
        command_fail(ctx, "bad_request", "maxDepth must be between 1 and 65536");
        return;
    }
    jint max_depth = (jint)requested_depth;
    thread_set set;
    jvmtiError err = thread_set_collect(ctx->jni, ctx->req, &set);
    if (err != JVMTI_ERROR_NONE) {
        command_fail_jvmti(ctx, "GetAllThreads", err);
        return;
    }
    jvmtiFrameInfo *scratch = want_frames ? malloc((size_t)max_depth * sizeof *scratch) : NULL;
    taken_frames *taken = calloc(set.count > 0 ? set.count : 1, sizeof *taken);
    if ((want_frames && scratch == NULL) || taken == NULL) {
        command_fail(ctx, "out_of_memory", "cannot allocate room for the frames");
        free(scratch);
        free(taken);
        thread_set_free(ctx->jni, &set);
        return;
    }
    for (size_t i = 0; want_frames && i < set.count; i++) {
        take_frames(set.threads[i], &taken[i], scratch, max_depth);
        set.subjects[i].owned_depth = owned_depth_of(ctx->jni, &taken[i], set.facts[i].state);
    }
    free(scratch);
    int lock_status = locks_collect(ctx->jni, set.subjects, set.count, max_depth, want_owned, set.locks);
    task_table tasks;
    (void)task_table_load(&tasks); /* on failure every nid is 0, "not matched" */
    json_writer *w = ctx->out;
    command_result(ctx);
    json_begin_object(w);
    json_key(w, "time");
    json_int(w, frames_wall_millis());
    json_key(w, "lockSource");
    json_cstring(w, locks_source());
    json_key(w, "lockFactsComplete");
    json_bool(w, lock_status == 0);
    method_index methods;
    method_index_init(&methods);
    json_key(w, "threads");
    json_begin_array(w);
    for (size_t i = 0; i < set.count; i++) {
        json_begin_object(w);
        json_key(w, "thread");
        json_begin_object(w);
        thread_facts_write(w, &set.facts[i], thread_facts_nid(&tasks, &set.facts[i]));
        json_end_object(w);
        if (want_frames) {
            write_frames(ctx, &methods, &taken[i]);
        }
        locks_write(w, &set.locks[i], want_owned);
        json_end_object(w);
    }
    json_end_array(w);
    if (want_frames) {
        json_key(w, "methods");
        frames_write_methods(w, ctx->jni, &methods);
    }
    method_index_free(&methods);
    json_end_object(w);
    task_table_free(&tasks);
    for (size_t i = 0; i < set.count; i++) {
        free(taken[i].frames);
    }
    free(taken);
    thread_set_free(ctx->jni, &set);
}
