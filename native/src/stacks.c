/* The `stacks` command: threads with their frames and lock facts. Frames come from a per-thread
 * GetStackTrace (a short handshake per thread, never a global safepoint); the snapshot is therefore
 * not atomic across threads, which is what makes it gentle on the target. Frames are taken first,
 * for every thread, then lock facts, which after a live attach are read from the stack at a
 * safepoint: a thread whose frames cannot hold a monitor (see frames_monitor_depth) is not asked
 * for the monitors it owns, and a waiting one only as deep as its deepest frame that may hold one. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent.h"
#include "commands.h"
#include "frames.h"
#include "locks.h"
#include "mutf8.h"
#include "native_ids.h"
#include "thread_facts.h"

#define DEFAULT_MAX_DEPTH 8192
#define LIMIT_MAX_DEPTH 65536

typedef struct {
    jthread thread;
    thread_facts facts;
    jvmtiFrameInfo *frames;  /* malloc'd, frame_count of them */
    jint frame_count;
    int truncated;
} stack_subject;

static int wanted(const request *req, jlong id) {
    size_t count = 0;
    const int64_t *ids = request_ints(req, "threads", &count);
    if (request_get(req, "threads") == NULL) {
        return 1;
    }
    for (size_t i = 0; i < count; i++) {
        if (ids[i] == id) {
            return 1;
        }
    }
    return 0;
}

static int64_t now_millis(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void write_thread(command_ctx *ctx, stack_subject *s, const lock_facts *locks, task_table *tasks,
                         int want_frames, int want_owned) {
    char utf8_name[64];
    json_writer *w = ctx->out;
    mutf8_to_utf8(s->facts.name, utf8_name, sizeof utf8_name);
    json_begin_object(w);
    json_key(w, "thread");
    json_begin_object(w);
    thread_facts_write(w, &s->facts, task_table_match(tasks, utf8_name, s->facts.cpu_nanos));
    json_end_object(w);
    if (want_frames) {
        json_key(w, "frames");
        frames_write(w, ctx->jni, s->frames, s->frame_count);
        if (s->truncated) {
            json_key(w, "truncated");
            json_bool(w, 1);
        }
    }
    locks_write(w, locks, want_owned);
    json_end_object(w);
}

/* The thread's frames, copied out of scratch (max_depth of room); none when it has ended. */
static void take_frames(stack_subject *s, jvmtiFrameInfo *scratch, jint max_depth) {
    jint count = 0;
    if ((*the_agent.jvmti)->GetStackTrace(the_agent.jvmti, s->thread, 0, max_depth, scratch, &count) != JVMTI_ERROR_NONE
            || count <= 0) {
        return;
    }
    s->frames = malloc((size_t)count * sizeof *scratch);
    if (s->frames != NULL) {
        memcpy(s->frames, scratch, (size_t)count * sizeof *scratch);
        s->frame_count = count;
        s->truncated = count == max_depth;
    }
}

/* How deep lock collection must look for the monitors this thread owns (see lock_subject). A
 * thread that runs may have moved since its frames were taken: it is looked at whole. */
static jint owned_depth_of(JNIEnv *jni, const stack_subject *s) {
    if (s->truncated || s->frame_count == 0 || (s->facts.state & JVMTI_THREAD_STATE_RUNNABLE) != 0) {
        return 0; /* deeper than asked, no Java frames (or none could be had), or moving: all of it */
    }
    return frames_monitor_depth(jni, s->frames, s->frame_count, 0);
}

void cmd_stacks(command_ctx *ctx) {
    jvmtiEnv *jvmti = the_agent.jvmti;
    JNIEnv *jni = ctx->jni;
    int64_t requested_depth = request_int(ctx->req, "maxDepth", DEFAULT_MAX_DEPTH);
    int want_frames = request_bool(ctx->req, "frames", 1);
    int want_owned = request_bool(ctx->req, "owned", 1);
    if (requested_depth < 1 || requested_depth > LIMIT_MAX_DEPTH) {
        command_fail(ctx, "bad_request", "maxDepth must be between 1 and 65536");
        return;
    }
    jint max_depth = (jint)requested_depth;
    jint count = 0;
    jthread *threads = NULL;
    jvmtiError err = (*jvmti)->GetAllThreads(jvmti, &count, &threads);
    if (err != JVMTI_ERROR_NONE) {
        command_fail_jvmti(ctx, "GetAllThreads", err);
        return;
    }
    stack_subject *subjects = calloc(count > 0 ? (size_t)count : 1, sizeof *subjects);
    lock_subject *lock_subjects = calloc(count > 0 ? (size_t)count : 1, sizeof *lock_subjects);
    lock_facts *locks = calloc(count > 0 ? (size_t)count : 1, sizeof *locks);
    jvmtiFrameInfo *frames = want_frames ? malloc((size_t)max_depth * sizeof *frames) : NULL;
    size_t chosen = 0;
    if (subjects == NULL || lock_subjects == NULL || locks == NULL || (want_frames && frames == NULL)) {
        command_fail(ctx, "out_of_memory", "cannot allocate room for the threads");
    } else {
        for (jint i = 0; i < count; i++) {
            stack_subject *s = &subjects[chosen];
            s->thread = threads[i];
            if (thread_facts_get(jni, threads[i], &s->facts) != JVMTI_ERROR_NONE) {
                continue;
            }
            if (!wanted(ctx->req, s->facts.id)) {
                thread_facts_free(&s->facts);
                continue;
            }
            chosen++;
        }
        for (size_t i = 0; i < chosen; i++) {
            stack_subject *s = &subjects[i];
            jint owned_depth = 0;
            if (want_frames) {
                take_frames(s, frames, max_depth);
                owned_depth = owned_depth_of(jni, s);
            }
            lock_subjects[i] = (lock_subject) { s->thread, s->facts.id, s->facts.state, owned_depth };
        }
        int lock_status = locks_collect(jni, lock_subjects, chosen, max_depth, want_owned, locks);
        task_table tasks;
        task_table_load(&tasks);
        command_result(ctx);
        json_begin_object(ctx->out);
        json_key(ctx->out, "time");
        json_int(ctx->out, now_millis());
        json_key(ctx->out, "lockSource");
        json_cstring(ctx->out, locks_source());
        json_key(ctx->out, "lockFactsComplete");
        json_bool(ctx->out, lock_status == 0);
        json_key(ctx->out, "threads");
        json_begin_array(ctx->out);
        for (size_t i = 0; i < chosen; i++) {
            write_thread(ctx, &subjects[i], &locks[i], &tasks, want_frames, want_owned);
        }
        json_end_array(ctx->out);
        json_end_object(ctx->out);
        task_table_free(&tasks);
    }
    for (size_t i = 0; i < chosen; i++) {
        thread_facts_free(&subjects[i].facts);
        free(subjects[i].frames);
    }
    if (locks != NULL) {
        locks_free(locks, chosen);
    }
    for (jint i = 0; i < count; i++) {
        (*jni)->DeleteLocalRef(jni, threads[i]);
    }
    (*jvmti)->Deallocate(jvmti, (unsigned char *)threads);
    free(frames);
    free(locks);
    free(lock_subjects);
    free(subjects);
}
