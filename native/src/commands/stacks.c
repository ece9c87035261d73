/* The `stacks` command: threads with their frames and lock facts. Each thread is one moment
 * (thread_moment.h): state and frames from one handshake with that thread, never a global
 * safepoint, and lock facts checked against them; the dump is therefore not atomic across threads,
 * which is what makes it gentle on the target, but no thread contradicts itself. A thread whose
 * frames cannot hold a monitor (see frames_monitor_depth) is not asked for the monitors it owns,
 * and where they are read at a safepoint, one only as deep as its deepest frame that may hold one.
 * The threads are taken and written in parts of STACKS_PART_THREADS, in their order, the last one
 * small (STACKS_LAST_PART_THREADS): it is what the client still has to print once the answer is
 * all sent. Each part is taken whole (moments, then lock facts) before it is written, so that what
 * a client reads does not change how far apart in time a thread's frames and its lock facts are,
 * and the client prints one part while the next is taken. Where owners are named by matching the
 * threads' facts against each other (locks_owners_named_among), all threads are one part. A
 * thread's frames are its "stack": the top node of a tree of [parent, method, line] nodes
 * ("nodes", see stack_tree.h) whose methods index a method table ("methods"): each distinct
 * method, and each distinct call path, is sent once. A part carries the nodes and methods its
 * threads add to those of the parts before it, ahead of its "threads", so that a client can print
 * each thread as it arrives; "vmThreads", the JVM's own threads (vm_threads.h, without frames),
 * come before the parts, and "lockFactsComplete" after them. Each thread carries its lock facts,
 * with the frame that entered the monitor a thread in Object.wait waits on where its frames tell
 * (frames_sole_monitor_frame). */
#include <stdlib.h>

#include "agent.h"
#include "answer.h"
#include "frames.h"
#include "thread_set.h"
#include "vm_threads.h"

/* Threads a part holds: few enough that the client starts printing early and each part's lock
 * facts come right after its moments, enough that ThreadMXBean's batches (locks.c) stay large. */
#define STACKS_PART_THREADS 512
/* Threads the last part holds, out of a rest that would make a larger one: what the client still
 * has to print after the answer's last byte. */
#define STACKS_LAST_PART_THREADS 64

/* One thread's place in the stack tree. */
typedef struct {
    int32_t top;          /* STACK_TREE_ROOT when it has no frames (or they could not be kept) */
    int truncated;        /* deeper than asked, or out of memory */
    jint wait_entered_at; /* in Object.wait: the frame that entered the monitor it waits on (jstack's
                             "- locked" line for it), where its frames tell for certain; else -1 */
} taken_stack;

/* Adds a thread's frames, as its moment has them, to the answer's stack tree. */
static taken_stack add_frames(JNIEnv *jni, method_index *methods, stack_tree *tree, stack_memo *memo,
                              const thread_moment *m) {
    int32_t top = frames_add_stack(jni, methods, tree, memo, thread_moment_frames(m), m->count);
    jint wait_entered_at = (m->state & JVMTI_THREAD_STATE_IN_OBJECT_WAIT) != 0 && !m->truncated
                               ? frames_sole_monitor_frame(jni, thread_moment_frames(m), m->count)
                               : -1;
    /* out of memory: sent without frames, marked cut */
    return (taken_stack) { top == STACK_TREE_FULL ? STACK_TREE_ROOT : top, m->truncated || top == STACK_TREE_FULL, wait_entered_at };
}

/* A thread's lock facts, into the thread's object; with its stack (NULL when frames were not
 * taken), "waitEnteredAt" for a thread in Object.wait where it is known. */
static void write_locks(json_writer *w, const thread_moment *m, const taken_stack *stack, int want_owned) {
    thread_moment_write_locks(w, m, want_owned);
    if (stack != NULL && !m->unsettled && m->locks.waiting == WAIT_NOTIFY && stack->wait_entered_at >= 0) {
        json_field_int(w, "waitEnteredAt", stack->wait_entered_at);
    }
}

/* Writes the threads [start, end) as one part of the answer: the stack tree's nodes and the
 * methods added since the part before (an index continues across parts), then the threads. */
static void write_part(command_ctx *ctx, const thread_set *set, const taken_stack *stacks, const stack_tree *tree,
                       const method_index *methods, size_t first_node, size_t first_method, size_t start, size_t end,
                       int want_owned) {
    json_writer *w = ctx->out;
    json_begin_object(w);
    if (stacks != NULL) {
        json_key(w, "nodes");
        stack_tree_write(w, tree, first_node);
        json_key(w, "methods");
        frames_write_methods(w, ctx->jni, methods, first_method);
    }
    json_begin_array_field(w, "threads");
    for (size_t i = start; i < end; i++) {
        json_begin_object(w);
        json_begin_object_field(w, "thread");
        thread_facts_write(w, &set->facts[i], &set->natives[i]);
        json_end_object(w);
        if (stacks != NULL) {
            json_field_int(w, "stack", stacks[i].top);
            if (stacks[i].truncated) {
                json_field_bool(w, "truncated", 1);
            }
        }
        write_locks(w, &set->moments[i], stacks != NULL ? &stacks[i] : NULL, want_owned);
        json_end_object(w);
    }
    json_end_array(w);
    json_end_object(w);
}

/* Where the part that starts at start ends: STACKS_PART_THREADS on, except that a rest of threads
 * that would all be the last part keeps its last STACKS_LAST_PART_THREADS for a part of their own;
 * all threads are one part when not in_parts. */
static size_t next_part_end(size_t start, size_t count, int in_parts) {
    size_t rest = count - start;
    if (!in_parts) {
        return count;
    }
    if (rest > STACKS_PART_THREADS) {
        return start + STACKS_PART_THREADS;
    }
    return rest >= 2 * STACKS_LAST_PART_THREADS ? count - STACKS_LAST_PART_THREADS : count;
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
    taken_stack *stacks = want_frames ? calloc(set.count > 0 ? set.count : 1, sizeof *stacks) : NULL;
    stack_memo memo = { NULL, NULL, 0, 0 };
    if (want_frames && (stacks == NULL || stack_memo_init(&memo, max_depth) != 0)) {
        command_fail(ctx, "out_of_memory", "cannot allocate room for the frames");
        free(stacks);
        thread_set_free(ctx->jni, &set);
        return;
    }
    thread_set_find_nids(ctx->jni, &set);
    vm_thread_list vm_threads;
    int with_vm_threads = request_bool(ctx->req, "vmThreads", 0)
                          && vm_threads_collect(ctx->jni, set.natives, set.count, &vm_threads) == 0;
    thread_set_cpu_read_done(&set);

    json_writer *w = ctx->out;
    command_result(ctx);
    json_begin_object(w);
    json_field_int(w, "time", frames_wall_millis());
    thread_set_write_cpu_read(w, &set);
    json_field_cstring(w, "lockSource", locks_source(ctx->jni, want_owned));
    if (with_vm_threads) {
        vm_threads_write(w, &vm_threads);
        vm_threads_free(&vm_threads);
    }
    method_index methods;
    method_index_init(&methods);
    stack_tree tree;
    stack_tree_init(&tree);
    int in_parts = !locks_owners_named_among(ctx->jni, want_owned);
    size_t written_nodes = 0;
    size_t written_methods = 0;
    int usage_calls_left = LOCKS_MONITOR_USAGE_CALLS;
    int lock_status = 0;
    json_begin_array_field(w, "parts");
    for (size_t start = 0, end; start < set.count; start = end) {
        end = next_part_end(start, set.count, in_parts);
        /* frames are taken for owned monitors too: they are what the lock facts are checked against */
        lock_status |= thread_set_take_range(ctx->jni, &set, start, end, want_frames || want_owned ? max_depth : 0,
                                             want_owned, &usage_calls_left);
        for (size_t i = start; want_frames && i < end; i++) {
            stacks[i] = add_frames(ctx->jni, &methods, &tree, &memo, &set.moments[i]);
        }
        write_part(ctx, &set, stacks, &tree, &methods, written_nodes, written_methods, start, end, want_owned);
        written_nodes = stack_tree_count(&tree);
        written_methods = method_index_count(&methods);
        /* sent now, so that the client prints this part while the next is taken; past a client
         * that is gone, no part is taken */
        if (json_flush(w) != 0) {
            break;
        }
    }
    json_end_array(w);
    json_field_bool(w, "lockFactsComplete", lock_status == 0);
    json_end_object(w);
    stack_memo_free(&memo);
    stack_tree_free(&tree);
    method_index_free(&methods);
    free(stacks);
    thread_set_free(ctx->jni, &set);
}
