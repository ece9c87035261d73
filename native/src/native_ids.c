#include "native_ids.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_TASKS 100000
#define COMM_BYTES 15

static int read_small_file(const char *path, char *buf, size_t cap) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return -1;
    }
    ssize_t n = read(fd, buf, cap - 1);
    close(fd);
    if (n < 0) {
        return -1;
    }
    buf[n] = '\0';
    return 0;
}

static void read_task(task_entry *t) {
    char path[64];
    char buf[128];
    snprintf(path, sizeof path, "/proc/self/task/%d/comm", (int)t->tid);
    if (read_small_file(path, buf, sizeof buf) == 0) {
        buf[strcspn(buf, "\n")] = '\0';
        size_t n = strlen(buf) < sizeof t->comm - 1 ? strlen(buf) : sizeof t->comm - 1;
        memcpy(t->comm, buf, n);
        t->comm[n] = '\0';
    }
    snprintf(path, sizeof path, "/proc/self/task/%d/schedstat", (int)t->tid);
    if (read_small_file(path, buf, sizeof buf) == 0) {
        t->cpu_nanos = strtoll(buf, NULL, 10);
    }
}

static int by_comm(const void *a, const void *b) {
    const task_entry *x = a;
    const task_entry *y = b;
    int c = strcmp(x->comm, y->comm);
    return c != 0 ? c : (x->tid > y->tid) - (x->tid < y->tid);
}

/* The tasks are sorted by comm (see task_table_load): the first whose comm is not below key. */
static size_t lower_bound(const task_table *table, const char *key) {
    size_t lo = 0;
    size_t hi = table->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(table->tasks[mid].comm, key) < 0) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo;
}

int task_table_load(task_table *table) {
    size_t cap = 256;
    struct dirent *entry;
    table->count = 0;
    table->tasks = malloc(cap * sizeof *table->tasks);
    DIR *dir = opendir("/proc/self/task");
    if (table->tasks == NULL || dir == NULL) {
        if (dir != NULL) closedir(dir);
        task_table_free(table);
        return -1;
    }
    while ((entry = readdir(dir)) != NULL && table->count < MAX_TASKS) {
        char *end;
        long tid = strtol(entry->d_name, &end, 10);
        if (*end != '\0' || tid <= 0) {
            continue;
        }
        if (table->count == cap) {
            task_entry *bigger = realloc(table->tasks, cap * 2 * sizeof *bigger);
            if (bigger == NULL) {
                break;
            }
            table->tasks = bigger;
            cap *= 2;
        }
        task_entry *t = &table->tasks[table->count++];
        memset(t, 0, sizeof *t);
        t->tid = (pid_t)tid;
        read_task(t);
    }
    closedir(dir);
    qsort(table->tasks, table->count, sizeof *table->tasks, by_comm);
    return 0;
}

/* Among the untaken tasks named comm, the one whose CPU time is closest; main: the launcher's
 * main thread keeps the process name ("java"), not "main". */
static task_entry *best_named(task_table *table, const char *comm, int64_t cpu_nanos, task_entry *best, int64_t *best_gap) {
    int is_java = strcmp(comm, "java") == 0;
    for (size_t i = lower_bound(table, comm); i < table->count && strcmp(table->tasks[i].comm, comm) == 0; i++) {
        task_entry *t = &table->tasks[i];
        if (t->taken || (is_java && t->tid == getpid())) {
            continue;
        }
        int64_t gap = llabs(t->cpu_nanos - cpu_nanos);
        if (best == NULL || gap < *best_gap) {
            best = t;
            *best_gap = gap;
        }
    }
    return best;
}

pid_t task_table_match(task_table *table, const char *utf8_name, int64_t cpu_nanos) {
    char comm[COMM_BYTES + 1];
    size_t n = strlen(utf8_name) < COMM_BYTES ? strlen(utf8_name) : COMM_BYTES;
    memcpy(comm, utf8_name, n);
    comm[n] = '\0';
    int64_t best_gap = 0;
    task_entry *best = best_named(table, comm, cpu_nanos, NULL, &best_gap);
    if (strcmp(utf8_name, "main") == 0) {
        best = best_named(table, "java", cpu_nanos, best, &best_gap);
    }
    if (best == NULL) {
        return 0;
    }
    best->taken = 1;
    return best->tid;
}

void task_table_free(task_table *table) {
    free(table->tasks);
    table->tasks = NULL;
    table->count = 0;
}
