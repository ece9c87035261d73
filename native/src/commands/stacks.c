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
 * (frames_sole_monitor_frame). Asked with "synchronizers" (stacks -l), it takes everything from
 * one thread dump at one safepoint instead, as jstack -l does (stacks_at_one_safepoint). */
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "all_threads_dump.h"
#include "answer.h"
#include "frames.h"
#include "pause_totals.h"
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

/* A thread the dump does not have (it ended before the dump), or the agent's own: its facts
 * alone, no frames, no lock facts. */
static void write_undumped(json_writer *w, const thread_set *set, size_t i) {
    thread_facts facts = set->facts[i];
    if ((*the_agent.jvmti)->GetThreadState(the_agent.jvmti, set->threads[i], &facts.state) != JVMTI_ERROR_NONE) {
        facts.state = JVMTI_THREAD_STATE_TERMINATED;
    }
    thread_facts_write(w, &facts, &set->natives[i]);
    json_end_object(w);
    json_field_int(w, "stack", STACK_TREE_ROOT);
}

/* A parked thread's wait as the dump has it is WAIT_PARK: what it waits for (a lock, a condition)
 * and in which mode is told by its blocker object, which the dump names only. Where the thread is
 * still parked on that object, its blocker tells. */
static wait_kind parked_kind(JNIEnv *jni, jthread thread, const lock_facts *seen) {
    lock_facts now;
    memset(&now, 0, sizeof now);
    wait_kind kind = WAIT_PARK;
    if (locks_collect_parked(jni, thread, &now) == 0 && now.waiting != WAIT_NONE && now.waits_for.hash == seen->waits_for.hash
            && now.waits_for.class_name != NULL && strcmp(now.waits_for.class_name, seen->waits_for.class_name) == 0) {
        kind = now.waiting;
    }
    lock_facts_free(&now, 1);
    return kind;
}

/* For a thread in Object.wait, the frame that entered the monitor it waits on (jstack's "- locked"
 * line for it), which the dump leaves out of what it owns: the JVMTI frames, taken now, tell where
 * they are the dump's frames (the same methods at the same lines); else -1. */
static jint wait_entered_at(JNIEnv *jni, jthread thread, const all_threads_dump *dump, const dumped_thread *t) {
    thread_moment m;
    memset(&m, 0, sizeof m);
    if (t->truncated || thread_moment_take(thread, t->frame_count + 1, &m) != 0) {
        return -1;
    }
    int same = m.count == t->frame_count;
    for (jint k = 0; same && k < m.count; k++) {
        const dumped_frame *f = &t->frames[k];
        const dumped_method *method = f->method >= 0 ? &dump->methods[f->method] : NULL;
        same = method != NULL && method->class_name != NULL && method->method_name != NULL
            && frames_frame_is(jni, &thread_moment_frames(&m)[k], method->class_name, method->method_name, f->line);
    }
    jint entered = same ? frames_sole_monitor_frame(jni, thread_moment_frames(&m), m.count) : -1;
    thread_moments_free(&m, 1);
    return entered;
}

/* `stacks` with the ownable synchronizers each thread owns (jstack -l): every thread's frames,
 * lock facts and synchronizers from one dump at one safepoint (all_threads_dump.h), all of one
 * moment as jstack -l's are, in one part, followed by "ownableSynchronizers":
 * {"owned": [{"ownerId", "class", "hash"}]}. The header facts (CPU time, the OS thread's state)
 * are read right after the dump. */
static void stacks_at_one_safepoint(command_ctx *ctx, thread_set *set, jint max_depth, int with_vm_threads_asked) {
    JNIEnv *jni = ctx->jni;
    all_threads_dump dump;
    if (all_threads_dump_take(jni, max_depth, &dump) != 0) {
        command_fail(ctx, "thread_dump_failed", "ThreadMXBean.dumpAllThreads with locked monitors and synchronizers failed");
        return;
    }
    thread_set_find_nids(jni, set);
    vm_thread_list vm_threads;
    int with_vm_threads = with_vm_threads_asked && vm_threads_collect(jni, set->natives, set->count, &vm_threads) == 0;
    const dumped_thread **of = calloc(set->count > 0 ? set->count : 1, sizeof *of);
    int32_t *tops = calloc(set->count > 0 ? set->count : 1, sizeof *tops);
    stack_tree tree;
    stack_tree_init(&tree);
    int tree_full = 0;
    for (size_t i = 0; of != NULL && tops != NULL && i < set->count; i++) {
        of[i] = set->facts[i].is_agent ? NULL : all_threads_dump_find(&dump, set->facts[i].id);
        int32_t top = STACK_TREE_ROOT;
        for (jint k = of[i] != NULL ? of[i]->frame_count - 1 : -1; k >= 0 && top != STACK_TREE_FULL; k--) {
            top = stack_tree_add(&tree, top, of[i]->frames[k].method, of[i]->frames[k].line);
        }
        tree_full |= top == STACK_TREE_FULL;
        tops[i] = top == STACK_TREE_FULL ? STACK_TREE_ROOT : top;
    }
    if (of == NULL || tops == NULL || tree_full) {
        command_fail(ctx, "out_of_memory", "cannot allocate room for the frames");
    } else {
        json_writer *w = ctx->out;
        command_result(ctx);
        json_begin_object(w);
        json_field_int(w, "time", frames_wall_millis());
        json_field_cstring(w, "lockSource", "threadDump");
        if (with_vm_threads) {
            vm_threads_write(w, &vm_threads);
        }
        json_begin_array_field(w, "parts");
        json_begin_object(w);
        json_key(w, "nodes");
        stack_tree_write(w, &tree, 0);
        json_begin_array_field(w, "methods");
        for (size_t m = 0; m < dump.method_count; m++) {
            frames_write_method(w, dump.methods[m].json, dump.methods[m].json_len, dump.methods[m].native);
        }
        json_end_array(w);
        json_begin_array_field(w, "threads");
        for (size_t i = 0; i < set->count; i++) {
            const dumped_thread *t = of[i];
            json_begin_object(w);
            json_begin_object_field(w, "thread");
            if (t == NULL) {
                write_undumped(w, set, i);
                json_end_object(w);
                continue;
            }
            thread_facts facts = set->facts[i];
            facts.state = t->state;
            thread_facts_write(w, &facts, &set->natives[i]);
            json_end_object(w);
            json_field_int(w, "stack", tops[i]);
            if (t->truncated) {
                json_field_bool(w, "truncated", 1);
            }
            lock_facts locks = t->locks;
            if (locks.waiting == WAIT_PARK) {
                locks.waiting = parked_kind(jni, set->threads[i], &t->locks);
            }
            locks_write(w, &locks, 1);
            jint entered = locks.waiting == WAIT_NOTIFY ? wait_entered_at(jni, set->threads[i], &dump, t) : -1;
            if (entered >= 0) {
                json_field_int(w, "waitEnteredAt", entered);
            }
            json_end_object(w);
        }
        json_end_array(w);
        json_end_object(w);
        json_end_array(w);
        json_field_bool(w, "lockFactsComplete", 1);
        json_begin_object_field(w, "ownableSynchronizers");
        json_begin_array_field(w, "owned");
        for (size_t i = 0; i < dump.count; i++) {
            for (jint k = 0; k < dump.threads[i].synchronizer_count; k++) {
                json_begin_object(w);
                json_field_int(w, "ownerId", dump.threads[i].id);
                json_field_mutf8(w, "class", dump.threads[i].synchronizers[k].class_name);
                json_field_int(w, "hash", (uint32_t)dump.threads[i].synchronizers[k].hash);
                json_end_object(w);
            }
        }
        json_end_array(w);
        json_end_object(w);
        json_end_object(w);
    }
    if (with_vm_threads) {
        vm_threads_free(&vm_threads);
    }
    stack_tree_free(&tree);
    free(of);
    free(tops);
    all_threads_dump_free(&dump);
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
    int with_usage = request_bool(ctx->req, "usage", 0);
    if (with_usage && request_bool(ctx->req, "synchronizers", 0)) {
        command_fail(ctx, "bad_request", "usage does not go with synchronizers");
        return;
    }
    pause_totals pauses_before, pauses_after;
    if (with_usage) {
        pause_totals_read(ctx->jni, &pauses_before);
    }
    thread_set set;
    jvmtiError err = thread_set_collect(ctx->jni, ctx->req, &set);
    if (err != JVMTI_ERROR_NONE) {
        command_fail_jvmti(ctx, "GetAllThreads", err);
        return;
    }
    if (request_bool(ctx->req, "synchronizers", 0)) {
        stacks_at_one_safepoint(ctx, &set, max_depth, request_bool(ctx->req, "vmThreads", 0));
        thread_set_free(ctx->jni, &set);
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
    if (with_usage && with_vm_threads) {
        vm_threads_read_usage(&vm_threads);
    }
    thread_set_cpu_read_done(&set);
    if (with_usage) { /* before the stacks are taken: an interval that ends here leaves that work out */
        pause_totals_read(ctx->jni, &pauses_after);
    }

    json_writer *w = ctx->out;
    command_result(ctx);
    json_begin_object(w);
    json_field_int(w, "time", frames_wall_millis());
    thread_set_write_cpu_read(w, &set);
    json_field_cstring(w, "lockSource", locks_source(ctx->jni, want_owned));
    thread_set_write_usage(w, &set);
    if (with_usage) {
        pause_totals_write(w, "pausesBefore", &pauses_before);
        pause_totals_write(w, "pausesAfter", &pauses_after);
    }
    if (with_vm_threads) {
        vm_threads_write(w, &vm_threads);
        if (with_usage) {
            vm_threads_write_usage(w, &vm_threads);
        }
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
