#include "native_ids.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_TASKS 100000
#define COMM_BYTES 15

typedef struct {
    pid_t tid;
    char comm[COMM_BYTES + 1];
    int64_t cpu_nanos;
    int taken;
} task_entry;

typedef struct {
    task_entry *tasks;
    size_t count;
} task_table;

/* The native ids matched before, by Java thread id, sorted: a Java thread keeps its OS thread for
 * life, so it is matched once, and a request reads /proc only when some thread is new to it (on a
 * JVM of thousands of threads, reading every task's name was most of a `threads` answer). Java
 * thread ids are never reused. */
typedef struct {
    int64_t java_id;
    pid_t nid;
} known_thread;

static known_thread *known;
static size_t known_count;

static int by_pid(const void *a, const void *b) {
    pid_t x = *(const pid_t *)a;
    pid_t y = *(const pid_t *)b;
    return (x > y) - (x < y);
}

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

static void read_comm(task_entry *t) {
    char path[64];
    char buf[128];
    snprintf(path, sizeof path, "/proc/self/task/%d/comm", (int)t->tid);
    if (read_small_file(path, buf, sizeof buf) == 0) {
        buf[strcspn(buf, "\n")] = '\0';
        size_t n = strlen(buf) < sizeof t->comm - 1 ? strlen(buf) : sizeof t->comm - 1;
        memcpy(t->comm, buf, n);
        t->comm[n] = '\0';
    }
}

static void read_cpu(task_entry *t) {
    char path[64];
    char buf[128];
    snprintf(path, sizeof path, "/proc/self/task/%d/schedstat", (int)t->tid);
    if (read_small_file(path, buf, sizeof buf) == 0) {
        t->cpu_nanos = strtoll(buf, NULL, 10);
    }
}

/* CPU time only tells apart tasks that the name does not: those sharing a comm, and "main" and
 * "java", between which the main thread is chosen (see task_table_match). Reading it for every task
 * would double the files opened. */
static void read_ambiguous_cpu(task_table *table) {
    for (size_t i = 0, end; i < table->count; i = end) {
        end = i + 1;
        while (end < table->count && strcmp(table->tasks[end].comm, table->tasks[i].comm) == 0) {
            end++;
        }
        const char *comm = table->tasks[i].comm;
        if (end - i > 1 || strcmp(comm, "java") == 0 || strcmp(comm, "main") == 0) {
            for (size_t k = i; k < end; k++) {
                read_cpu(&table->tasks[k]);
            }
        }
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

static void task_table_free(task_table *table) {
    free(table->tasks);
    table->tasks = NULL;
    table->count = 0;
}

static int is_claimed(const pid_t *claimed, size_t count, pid_t tid) {
    return count > 0 && bsearch(&tid, claimed, count, sizeof *claimed, by_pid) != NULL;
}

/* This process's tasks but the claimed ones (sorted); returns 0, or -1 (then the table is empty). */
static int task_table_load(task_table *table, const pid_t *claimed, size_t claimed_count) {
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
        if (*end != '\0' || tid <= 0 || is_claimed(claimed, claimed_count, (pid_t)tid)) {
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
        read_comm(t);
    }
    int cut_short = entry != NULL; /* MAX_TASKS or out of memory: a match could take the wrong task */
    closedir(dir);
    if (cut_short) {
        task_table_free(table);
        return -1;
    }
    qsort(table->tasks, table->count, sizeof *table->tasks, by_comm);
    read_ambiguous_cpu(table);
    return 0;
}

/* Among the untaken tasks named comm, the one whose CPU time is closest; main: the launcher's
 * main thread keeps the process name ("java"), not "main". Counts the tasks so named in named. */
static task_entry *best_named(task_table *table, const char *comm, int64_t cpu_nanos, task_entry *best, int64_t *best_gap,
                              size_t *named) {
    int is_java = strcmp(comm, "java") == 0;
    for (size_t i = lower_bound(table, comm); i < table->count && strcmp(table->tasks[i].comm, comm) == 0; i++) {
        task_entry *t = &table->tasks[i];
        if (is_java && t->tid == getpid()) {
            continue;
        }
        (*named)++;
        if (t->taken) {
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

/* The tid of the untaken task best matching a thread so named (0 when none does), now taken;
 * *one_task when it was the only task of that name, so that CPU time did not have to decide. */
static pid_t task_table_match(task_table *table, const char *name, int64_t cpu_nanos, int *one_task) {
    char comm[COMM_BYTES + 1];
    size_t n = strlen(name) < COMM_BYTES ? strlen(name) : COMM_BYTES;
    memcpy(comm, name, n);
    comm[n] = '\0';
    int64_t best_gap = 0;
    size_t named = 0;
    task_entry *best = best_named(table, comm, cpu_nanos, NULL, &best_gap, &named);
    if (strcmp(name, "main") == 0) {
        best = best_named(table, "java", cpu_nanos, best, &best_gap, &named);
    }
    *one_task = named == 1;
    if (best == NULL) {
        return 0;
    }
    best->taken = 1;
    return best->tid;
}

static int by_java_id(const void *a, const void *b) {
    const known_thread *x = a;
    const known_thread *y = b;
    return (x->java_id > y->java_id) - (x->java_id < y->java_id);
}

static pid_t remembered_nid(int64_t java_id) {
    known_thread key = { java_id, 0 };
    const known_thread *found = known_count == 0 ? NULL : bsearch(&key, known, known_count, sizeof *known, by_java_id);
    return found == NULL ? 0 : found->nid;
}

void native_ids_forget(void) {
    free(known);
    known = NULL;
    known_count = 0;
}

/* What to remember after a request: its certain matches (the only task of that name, for the only
 * thread of that name), and, when it was not about every thread, what was remembered of the
 * others. All or nothing: out of memory, or past MAX_TASKS, the next request matches again. */
static void remember(const nid_query *queries, const unsigned char *certain, size_t count, int complete) {
    size_t kept = complete ? 0 : known_count;
    known_thread *next = kept + count <= MAX_TASKS ? malloc((kept + count > 0 ? kept + count : 1) * sizeof *next) : NULL;
    if (next == NULL) {
        native_ids_forget();
        return;
    }
    size_t n = 0;
    for (size_t i = 0; i < kept; i++) {
        next[n++] = known[i];
    }
    for (size_t i = 0; i < count; i++) {
        int new_to_next = complete || remembered_nid(queries[i].java_id) == 0;
        if (queries[i].nid > 0 && certain[i] && new_to_next) {
            next[n++] = (known_thread) { queries[i].java_id, queries[i].nid };
        }
    }
    free(known);
    known = next;
    known_count = n;
    qsort(known, known_count, sizeof *known, by_java_id);
}

/* The tasks no new match may take: those of the threads asked about that were matched before and,
 * when the request is not about every thread, those of every thread matched before (the threads
 * not asked about are not known to have ended). Sorted; NULL when out of memory. */
static pid_t *claimed_tasks(const nid_query *queries, size_t count, int complete, size_t *claimed_count) {
    size_t room = complete ? count : known_count;
    pid_t *claimed = malloc((room > 0 ? room : 1) * sizeof *claimed);
    *claimed_count = 0;
    if (claimed == NULL) {
        return NULL;
    }
    if (complete) {
        for (size_t i = 0; i < count; i++) {
            if (queries[i].nid > 0) {
                claimed[(*claimed_count)++] = queries[i].nid;
            }
        }
    } else {
        for (size_t i = 0; i < known_count; i++) {
            claimed[(*claimed_count)++] = known[i].nid;
        }
    }
    qsort(claimed, *claimed_count, sizeof *claimed, by_pid);
    return claimed;
}

static int by_comm_prefix(const void *a, const void *b) {
    const char *x = *(const char *const *)a;
    const char *y = *(const char *const *)b;
    return strncmp(x, y, COMM_BYTES);
}

/* Whether another query's name has the same first COMM_BYTES bytes as query i's, for each i: then
 * the OS thread's name alone cannot tell which thread a task is. Sets nothing when out of memory
 * (every name counts as shared). */
static void mark_shared_names(const nid_query *queries, size_t count, unsigned char *shared) {
    const char **names = malloc((count > 0 ? count : 1) * sizeof *names);
    if (names == NULL) {
        memset(shared, 1, count);
        return;
    }
    size_t n = 0;
    for (size_t i = 0; i < count; i++) {
        if (queries[i].name != NULL) {
            names[n++] = queries[i].name;
        }
    }
    qsort(names, n, sizeof *names, by_comm_prefix);
    for (size_t i = 0; i < count; i++) {
        const char *name = queries[i].name;
        const char **first = name == NULL ? NULL : bsearch(&name, names, n, sizeof *names, by_comm_prefix);
        /* bsearch finds one of the equal names: shared when a neighbour is equal too */
        shared[i] = first != NULL && ((first > names && by_comm_prefix(first - 1, first) == 0)
                                      || (first + 1 < names + n && by_comm_prefix(first + 1, first) == 0));
    }
    free(names);
}

void native_ids_resolve(nid_query *queries, size_t count, int complete) {
    unsigned char *certain = calloc(count > 0 ? count : 1, 1);
    size_t unknown = 0;
    for (size_t i = 0; i < count; i++) {
        queries[i].nid = certain == NULL ? 0 : remembered_nid(queries[i].java_id);
        if (queries[i].nid > 0) {
            certain[i] = 1;
        } else {
            unknown++;
        }
    }
    size_t claimed_count = 0;
    pid_t *claimed = unknown > 0 && certain != NULL ? claimed_tasks(queries, count, complete, &claimed_count) : NULL;
    unsigned char *shared = claimed == NULL ? NULL : malloc(count > 0 ? count : 1);
    task_table tasks;
    if (shared != NULL && task_table_load(&tasks, claimed, claimed_count) == 0) {
        mark_shared_names(queries, count, shared);
        for (size_t i = 0; i < count; i++) {
            if (queries[i].nid == 0 && queries[i].name != NULL) {
                int one_task = 0;
                queries[i].nid = task_table_match(&tasks, queries[i].name, queries[i].cpu_nanos, &one_task);
                certain[i] = (unsigned char)(one_task && !shared[i]);
            }
        }
        task_table_free(&tasks);
    }
    free(shared);
    if (certain != NULL) {
        remember(queries, certain, count, complete);
    }
    free(claimed);
    free(certain);
}

