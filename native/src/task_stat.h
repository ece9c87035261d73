/* What the kernel records of one of this process's threads (/proc/self/task/<nid>/stat) that a
 * thread dump's header shows: the nice value, which is what HotSpot prints as os_prio on Linux
 * (getpriority of the thread), and when the thread started, for elapsed=. */
#ifndef JVMTICLI_TASK_STAT_H
#define JVMTICLI_TASK_STAT_H

#include <stdint.h>
#include <sys/types.h>

typedef struct {
    int nice;
    int64_t started_millis; /* epoch milliseconds, to the kernel's clock tick (10 ms at USER_HZ 100) */
} task_stat;

/* Returns 0, or -1 when the task is gone or its record does not read as expected. */
int task_stat_read(pid_t nid, task_stat *out);

/* Parses a stat line (as the file holds it) into nice and start time in clock ticks since boot.
 * Returns 0, or -1. For task_stat_read and the unit tests. */
int task_stat_parse(const char *line, long *nice, unsigned long long *start_ticks);

#endif
