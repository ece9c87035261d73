/* Native thread ids (the `nid` of a thread dump). JVMTI does not expose them, so they are
 * matched from /proc/self/task: HotSpot names each OS thread after its Java thread (first 15
 * bytes); threads with the same name are told apart by the CPU time the kernel counted. */
#ifndef JVMTICLI_NATIVE_IDS_H
#define JVMTICLI_NATIVE_IDS_H

#include <stdint.h>
#include <sys/types.h>

typedef struct {
    pid_t tid;
    char comm[16];
    int64_t cpu_nanos;
    int taken;
} task_entry;

typedef struct {
    task_entry *tasks;
    size_t count;
} task_table;

/* Reads this process's tasks; returns 0, or -1 (then the table is empty). */
int task_table_load(task_table *table);

/* The tid of the task best matching a Java thread, or 0 when none does. */
pid_t task_table_match(task_table *table, const char *utf8_name, int64_t cpu_nanos);

void task_table_free(task_table *table);

#endif
