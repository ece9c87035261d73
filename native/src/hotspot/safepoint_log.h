/* HotSpot's unified-logging lines that `pauses` reads (decorated with timemillis,uptimenanos):
 *   [1796319915596ms][3213576036ns] Safepoint "G1CollectForAllocation", Time since last: 6647120 ns,
 *       Reaching safepoint: 3837 ns, Cleanup: 30714 ns, At safepoint: 8787285 ns, Total: 8821836 ns
 * (safepoint=info; JDK 17 logs Cleanup; JDK 25 logs Leaving safepoint and ", Threads: 0 runnable, 10 total"
 * instead), and the collectors' one line per pause
 *   [1796319915595ms][3211804779ns] GC(82) Pause Young (Normal) (G1 Evacuation Pause) 199M->199M(256M) 7.025ms
 * (gc=info), ZGC's under gc+phases (its other tags log none):
 *   [1796389881468ms][235639335ns] GC(0) Pause Mark Start 0.011ms
 *   [1796389884664ms][186647921ns] GC(0) Y: Pause Mark Start (Major) 0.054ms   (generational, JDK 21+)
 * JDK 11 logs a safepoint in three lines instead, with its figures in seconds to the tenth of
 * a microsecond and no time at the safepoint apart:
 *   [..ms][..ns] Application time: 1.0008462 seconds
 *   [..ms][..ns] Entering safepoint region: G1CollectForAllocation
 *   [..ms][..ns] Total time for which application threads were stopped: 0.1087597 seconds, Stopping threads took: 0.0000151 seconds
 * which the caller puts together (LOG_LINE_SINCE_LAST, LOG_LINE_ENTERING, LOG_LINE_STOPPED).
 * Pure: no JVM, no allocation. */
#ifndef JVMTICLI_SAFEPOINT_LOG_H
#define JVMTICLI_SAFEPOINT_LOG_H

#include <stddef.h>
#include <stdint.h>

#define SAFEPOINT_LOG_OPERATION_MAX 64
#define SAFEPOINT_LOG_GC_MAX 160

/* LOG_LINE_SAFEPOINT: a whole safepoint (JDK 17+); LOG_LINE_SINCE_LAST, LOG_LINE_ENTERING and
 * LOG_LINE_STOPPED: JDK 11's three lines of one (since_last_nanos; operation; reaching_nanos and
 * total_nanos, the others -1); LOG_LINE_UNREAD: about safepoints, but in none of these forms. */
typedef enum {
    LOG_LINE_OTHER, LOG_LINE_SAFEPOINT, LOG_LINE_GC_PAUSE, LOG_LINE_SINCE_LAST, LOG_LINE_ENTERING, LOG_LINE_STOPPED, LOG_LINE_UNREAD
} log_line_kind;

typedef struct {
    int64_t millis;         /* timemillis: the wall clock when the line was logged (the end of the safepoint) */
    int64_t uptime_nanos;   /* uptimenanos */
    /* a safepoint */
    char operation[SAFEPOINT_LOG_OPERATION_MAX];
    int64_t since_last_nanos;   /* -1 where not logged */
    int64_t reaching_nanos;
    int64_t cleanup_nanos;      /* -1 where the JDK logs none (this and the others marked so) */
    int64_t at_safepoint_nanos; /* -1 where not logged (JDK 11) */
    int64_t leaving_nanos;      /* -1 where not logged */
    int64_t total_nanos;
    int64_t threads_runnable;   /* threads running when it began; -1 where not logged */
    /* a collector's pause: its id and the text after "GC(id) " */
    int64_t gc_id;
    char gc[SAFEPOINT_LOG_GC_MAX];
} log_line;

/* Reads one line (without its newline) of len bytes into *out; returns its kind. A line that is
 * neither, or not whole, is LOG_LINE_OTHER. */
log_line_kind safepoint_log_parse(const char *line, size_t len, log_line *out);

#endif
