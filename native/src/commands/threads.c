/* The `threads` command: every live platform thread with its facts and what it waits for; with
 * "vmThreads", the JVM's own threads too (vm_threads.h); with "usage", each one's CPU apart and
 * allocated bytes (thread_set.h), and the JVM's pause totals before and after the command's work
 * (pause_totals.h), so that an interval between two answers leaves the agent's own work out. The
 * `cpu` command: each one's CPU time alone. */
#include "agent.h"
#include "answer.h"
#include "pause_totals.h"
#include "thread_set.h"
#include "vm_threads.h"

void cmd_threads(command_ctx *ctx) {
    int with_usage = request_bool(ctx->req, "usage", 0);
    pause_totals before, after;
    if (with_usage) {
        pause_totals_read(ctx->jni, &before);
    }
    thread_set set;
    jvmtiError err = thread_set_collect(ctx->jni, ctx->req, &set);
    if (err != JVMTI_ERROR_NONE) {
        command_fail_jvmti(ctx, "GetAllThreads", err);
        return;
    }
    int lock_status = thread_set_take(ctx->jni, &set, 0, 0);
    thread_set_find_nids(ctx->jni, &set);
    vm_thread_list vm_threads;
    int with_vm_threads = request_bool(ctx->req, "vmThreads", 0)
                          && vm_threads_collect(ctx->jni, set.natives, set.count, &vm_threads) == 0;
    if (with_usage && with_vm_threads) {
        vm_threads_read_usage(&vm_threads);
    }
    thread_set_cpu_read_done(&set);
    if (with_usage) {
        pause_totals_read(ctx->jni, &after);
    }
    command_result(ctx);
    json_begin_object(ctx->out);
    json_field_bool(ctx->out, "lockFactsComplete", lock_status == 0);
    thread_set_write_cpu_read(ctx->out, &set);
    json_begin_array_field(ctx->out, "threads");
    for (size_t i = 0; i < set.count; i++) {
        json_begin_object(ctx->out);
        thread_facts_write(ctx->out, &set.facts[i], &set.natives[i]);
        thread_moment_write_locks(ctx->out, &set.moments[i], 0);
        json_end_object(ctx->out);
    }
    json_end_array(ctx->out);
    thread_set_write_usage(ctx->out, &set);
    if (with_usage) {
        pause_totals_write(ctx->out, "pausesBefore", &before);
        pause_totals_write(ctx->out, "pausesAfter", &after);
    }
    if (with_vm_threads) {
        vm_threads_write(ctx->out, &vm_threads);
        if (with_usage) {
            vm_threads_write_usage(ctx->out, &vm_threads);
        }
        vm_threads_free(&vm_threads);
    }
    json_end_object(ctx->out);
    thread_set_free(ctx->jni, &set);
}

/* A thread whose CPU time is the same at two reads did not run in between: the CLI reads them
 * around what it looks at in separate requests, to know whose facts of one moment hold at another. */
void cmd_cpu(command_ctx *ctx) {
    thread_set set;
    jvmtiError err = thread_set_collect(ctx->jni, ctx->req, &set);
    if (err != JVMTI_ERROR_NONE) {
        command_fail_jvmti(ctx, "GetAllThreads", err);
        return;
    }
    thread_set_find_nids(ctx->jni, &set);
    command_result(ctx);
    json_begin_object(ctx->out);
    thread_set_write_cpu_read(ctx->out, &set);
    json_begin_array_field(ctx->out, "threads");
    for (size_t i = 0; i < set.count; i++) {
        json_begin_object(ctx->out);
        json_field_int(ctx->out, "id", set.facts[i].id);
        json_field_int(ctx->out, "cpuNanos", set.facts[i].cpu_nanos);
        json_end_object(ctx->out);
    }
    json_end_array(ctx->out);
    json_end_object(ctx->out);
    thread_set_free(ctx->jni, &set);
}
