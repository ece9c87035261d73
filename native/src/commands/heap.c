/* The `heap` command: the JDK's own class histogram (GC.class_histogram, a parallel heap walk at a
 * safepoint; with "live" a full GC first, as jmap -histo:live) as its text, and how long the JVM
 * was paused for it: the safepoints the JVM counted while the command ran (HotSpot's
 * HotspotRuntimeMBean, the counters behind -Xlog:safepoint, in whole milliseconds), read before
 * and after. A safepoint another cause took meanwhile is counted too, and the count says so; the
 * pauses while it waited for a GC (below) are counted apart.
 * With "afterGc" (not with "live") it first waits, up to "gcWaitMillis", for the next GC pause the
 * JVM runs on its own, and walks the heap right after it: with the young generation's garbage
 * gone, the growth between histograms is not swamped by how full it happened to be. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "answer.h"
#include "diagnostic_command.h"
#include "events.h"
#include "gc_count.h"
#include "jni_util.h"
#include "pause_totals.h"

#define HEAP_MAX_ANSWER (256u << 20)
#define HEAP_TIMEOUT_SECONDS 600
/* Requests are served one at a time: a longer wait would keep every other client (and a detach) waiting. */
#define HEAP_GC_WAIT_MAX_MILLIS 60000
#define HEAP_GC_WAIT_SLICE_MILLIS 200 /* how soon a requester that hung up (Ctrl-C) frees the agent */

/* HotSpot lets the threads go at the end of a safepoint before it adds that safepoint's time to
 * the totals (SafepointSynchronize::end), while its count went up when it began: totals read right
 * after a pause (the GC just waited for) can lack its time, which the next read would then count as
 * the histogram's. So the totals are read until two reads SETTLE_MILLIS apart agree, at most
 * SETTLE_READS times (a JVM that keeps starting safepoints may never be still). */
#define SETTLE_MILLIS 2
#define SETTLE_READS 20

static int read_settled_totals(JNIEnv *jni, safepoint_totals *totals) {
    if (safepoint_totals_read(jni, totals) != 0) {
        return -1;
    }
    for (int i = 1; i < SETTLE_READS; i++) {
        struct timespec pause = { 0, SETTLE_MILLIS * 1000000L };
        nanosleep(&pause, NULL);
        safepoint_totals again;
        if (safepoint_totals_read(jni, &again) != 0) {
            return -1;
        }
        int settled = again.count == totals->count && again.at_safepoint_millis == totals->at_safepoint_millis
            && again.reaching_millis == totals->reaching_millis;
        *totals = again;
        if (settled) {
            break;
        }
    }
    return 0;
}

static void write_safepoints(json_writer *w, const safepoint_totals *before, const safepoint_totals *after) {
    json_begin_object_field(w, "safepoints");
    json_field_int(w, "count", after->count - before->count);
    json_field_int(w, "atSafepointMillis", after->at_safepoint_millis - before->at_safepoint_millis);
    json_field_int(w, "reachingMillis", after->reaching_millis - before->reaching_millis);
    json_end_object(w);
}

/* Waits up to wait_millis for a GC pause past began, in slices, so that a requester that hung up
 * (Ctrl-C) frees the agent's one thread soon: 1 if one came, 0 if none in time, -1 if it hung up. */
static int wait_for_gc(const command_ctx *ctx, int64_t began, int64_t wait_millis) {
    int64_t started = events_now_nanos();
    for (int64_t left = wait_millis; left > 0; left = wait_millis - (events_now_nanos() - started) / 1000000) {
        if (command_client_hung_up(ctx)) {
            return -1;
        }
        if (gc_count_wait_past(began, left < HEAP_GC_WAIT_SLICE_MILLIS ? left : HEAP_GC_WAIT_SLICE_MILLIS)) {
            return 1;
        }
    }
    return 0;
}

void cmd_heap(command_ctx *ctx) {
    int live = request_bool(ctx->req, "live", 0);
    int after_gc = request_bool(ctx->req, "afterGc", 0);
    int64_t gc_wait_millis = request_int(ctx->req, "gcWaitMillis", 0);
    if (after_gc && (live || gc_wait_millis < 0 || gc_wait_millis > HEAP_GC_WAIT_MAX_MILLIS)) {
        command_fail(ctx, "bad_request", "afterGc takes gcWaitMillis from 0 to 60000, and not live");
        return;
    }
    int gc_came = 0;
    int64_t gc_waited = 0;
    safepoint_totals wait_began, before, after;
    int counted = safepoint_totals_read(ctx->jni, &wait_began) == 0;
    if (after_gc) {
        int64_t began = gc_count_begin();
        if (began < 0) {
            command_fail(ctx, "gc_events_unavailable", "cannot watch for garbage collections (GarbageCollectionFinish)");
            return;
        }
        int64_t wait_started = events_now_nanos();
        gc_came = wait_for_gc(ctx, began, gc_wait_millis);
        gc_waited = events_now_nanos() - wait_started;
        (void)gc_count_end(began);
        if (gc_came < 0) {
            command_fail(ctx, "client_gone", "the client hung up while the histogram waited for a GC");
            return;
        }
    }
    const char *command_line = live ? "GC.class_histogram" : "GC.class_histogram -all";
    counted = counted && read_settled_totals(ctx->jni, &before) == 0;
    int64_t started = events_now_nanos();
    char error[256] = "";
    size_t length = 0;
    char *text = diagnostic_command_run(command_line, HEAP_MAX_ANSWER, HEAP_TIMEOUT_SECONDS, error, sizeof error, &length);
    int64_t elapsed = events_now_nanos() - started;
    counted = counted && safepoint_totals_read(ctx->jni, &after) == 0;
    if (text == NULL) {
        command_fail(ctx, "histogram_failed", error);
        return;
    }
    command_result(ctx);
    json_writer *w = ctx->out;
    json_begin_object(w);
    json_field_bool(w, "live", live);
    json_field_cstring(w, "command", command_line);
    json_field_int(w, "startedNanos", started); /* CLOCK_MONOTONIC: only the difference between two answers means something */
    json_field_int(w, "elapsedNanos", elapsed);
    if (after_gc) {
        json_begin_object_field(w, "afterGc");
        json_field_bool(w, "gcCame", gc_came);
        json_field_int(w, "waitedNanos", gc_waited);
        json_field_int(w, "gcWaitMillis", gc_wait_millis);
        if (counted) { /* the GC waited for, and any other pause while the command waited: not the histogram's */
            write_safepoints(w, &wait_began, &before);
        }
        json_end_object(w);
    }
    if (counted) {
        write_safepoints(w, &before, &after);
    }
    json_field_string(w, "histogram", text, length);
    json_end_object(w);
    free(text);
}
