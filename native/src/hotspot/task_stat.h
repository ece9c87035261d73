/* What the kernel records of one of this process's threads (/proc/self/task/<nid>/stat) that a
 * thread dump's header shows: the nice value, from which os_prio follows (os_priority.h), and when
 * the thread started, for elapsed=. */
#ifndef JVMTICLI_TASK_STAT_H
#define JVMTICLI_TASK_STAT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct {
    int nice;
    int64_t started_millis; /* epoch milliseconds, to the kernel's clock tick (10 ms at USER_HZ 100) */
} task_stat;

/* The CPU time a task used apart: in user mode and in the kernel (utime, stime), to the kernel's
 * clock tick (10 ms at USER_HZ 100). */
typedef struct {
    int64_t user_nanos;
    int64_t system_nanos;
} task_cpu;

/* Returns 0, or -1 when the task is gone or its record does not read as expected. */
int task_stat_read(pid_t nid, task_stat *out);

/* Reads the task's stat file for its task_cpu. Returns 0, or -1 as task_stat_read. */
int task_stat_read_cpu(pid_t nid, task_cpu *out);

/* task_stat_read for count of the JVM's Java threads at once: ids[i] is the thread's Java id (never
 * reused in a JVM), nids[i] its task (0: unknown, nothing read); ok[i] says whether out[i] was read.
 * A thread's start time is read from its stat file once and kept while the thread has the nid it had
 * at the previous call (a Java thread's task is its own for its life); its nice value is read every
 * time, by getpriority(2): reading every stat file each time would cost
 * far more (docs/performance.md). */
void task_stat_read_threads(const int64_t *ids, const pid_t *nids, size_t count, task_stat *out, unsigned char *ok);

/* Frees what task_stat_read_threads keeps from one call to the next. */
void task_stat_forget(void);

/* Parses a stat line (as the file holds it) into nice and start time in clock ticks since boot.
 * Returns 0, or -1. For task_stat_read and the unit tests. */
int task_stat_parse(const char *line, long *nice, unsigned long long *start_ticks);

/* Parses a stat line's utime and stime, in clock ticks. Returns 0, or -1. */
int task_stat_parse_cpu(const char *line, unsigned long long *user_ticks, unsigned long long *system_ticks);

#endif
