#include "native_ids.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAX_TASKS 100000
#define COMM_BYTES NATIVE_IDS_COMM_BYTES

typedef struct {
    pid_t tid;
    char comm[COMM_BYTES + 1];
} task_entry;

static int by_pid(const void *a, const void *b) {
    pid_t x = *(const pid_t *)a;
    pid_t y = *(const pid_t *)b;
    return (x > y) - (x < y);
}

int native_ids_comm(pid_t tid, char comm[NATIVE_IDS_COMM_BYTES + 1]) {
    char path[64];
    char buf[NATIVE_IDS_COMM_BYTES + 2];
    snprintf(path, sizeof path, "/proc/self/task/%d/comm", (int)tid);
    comm[0] = '\0';
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return -1;
    }
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) {
        return -1;
    }
    buf[n] = '\0';
    buf[strcspn(buf, "\n")] = '\0';
    memcpy(comm, buf, strlen(buf) + 1);
    return 0;
}

/* This process's tasks, with their names when with_comm. Returns the count, or -1 (then *tasks is
 * NULL): out of memory, or past MAX_TASKS, a check could pass a wrong id. */
static long list_tasks(task_entry **tasks, int with_comm) {
    size_t cap = 256;
    size_t count = 0;
    struct dirent *entry;
    *tasks = malloc(cap * sizeof **tasks);
    DIR *dir = opendir("/proc/self/task");
    if (*tasks == NULL || dir == NULL) {
        if (dir != NULL) closedir(dir);
        free(*tasks);
        *tasks = NULL;
        return -1;
    }
    while ((entry = readdir(dir)) != NULL && count < MAX_TASKS) {
        char *end;
        long tid = strtol(entry->d_name, &end, 10);
        if (*end != '\0' || tid <= 0) {
            continue;
        }
        if (count == cap) {
            task_entry *bigger = realloc(*tasks, cap * 2 * sizeof *bigger);
            if (bigger == NULL) {
                break;
            }
            *tasks = bigger;
            cap *= 2;
        }
        (*tasks)[count] = (task_entry) { .tid = (pid_t)tid };
        if (with_comm) {
            native_ids_comm((*tasks)[count].tid, (*tasks)[count].comm);
        }
        count++;
    }
    int cut_short = entry != NULL;
    closedir(dir);
    if (cut_short) {
        free(*tasks);
        *tasks = NULL;
        return -1;
    }
    return (long)count;
}

static int by_comm(const void *a, const void *b) {
    return strcmp(((const task_entry *)a)->comm, ((const task_entry *)b)->comm);
}

/* The tasks named comm, among tasks sorted by name: how many, and the first. */
static size_t tasks_named(const task_entry *tasks, size_t count, const char *comm, const task_entry **first) {
    size_t lo = 0;
    size_t hi = count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(tasks[mid].comm, comm) < 0) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    size_t end = lo;
    while (end < count && strcmp(tasks[end].comm, comm) == 0) {
        end++;
    }
    *first = &tasks[lo];
    return end - lo;
}

/* The one task named as the thread is, or 0 when none or several. The launcher's main thread
 * keeps the process's name ("java"), not "main"; the process's first task, also "java", only
 * waits for the JVM to end and is never a Java thread. */
static pid_t only_task_named(const task_entry *tasks, size_t count, const char *name) {
    const task_entry *named;
    size_t n = tasks_named(tasks, count, name, &named);
    pid_t found = n == 1 ? named->tid : 0;
    if (strcmp(name, "main") == 0) {
        const task_entry *java;
        size_t launchers = tasks_named(tasks, count, "java", &java);
        for (size_t i = 0; i < launchers; i++) {
            if (java[i].tid != getpid()) {
                found = java[i].tid;
                n++;
            }
        }
    }
    return n == 1 ? found : 0;
}

static int by_comm_prefix(const void *a, const void *b) {
    const char *x = *(const char *const *)a;
    const char *y = *(const char *const *)b;
    return strncmp(x, y, COMM_BYTES);
}

/* Whether another name has the same first COMM_BYTES bytes as names[i], for each i. Out of
 * memory, every name counts as shared. */
static void mark_shared_names(const char *const *names, size_t count, unsigned char *shared) {
    const char **sorted = malloc((count > 0 ? count : 1) * sizeof *sorted);
    if (sorted == NULL) {
        memset(shared, 1, count);
        return;
    }
    size_t n = 0;
    for (size_t i = 0; i < count; i++) {
        if (names[i] != NULL) {
            sorted[n++] = names[i];
        }
    }
    qsort(sorted, n, sizeof *sorted, by_comm_prefix);
    for (size_t i = 0; i < count; i++) {
        const char **first = names[i] == NULL ? NULL : bsearch(&names[i], sorted, n, sizeof *sorted, by_comm_prefix);
        /* bsearch finds one of the equal names: shared when a neighbour is equal too */
        shared[i] = first != NULL && ((first > sorted && by_comm_prefix(first - 1, first) == 0)
                                      || (first + 1 < sorted + n && by_comm_prefix(first + 1, first) == 0));
    }
    free(sorted);
}

void native_ids_from_names(const char *const *names, size_t count, native_thread *out) {
    task_entry *tasks;
    long task_count = list_tasks(&tasks, 1);
    unsigned char *shared = malloc(count > 0 ? count : 1);
    if (task_count >= 0 && shared != NULL) {
        qsort(tasks, (size_t)task_count, sizeof *tasks, by_comm);
        mark_shared_names(names, count, shared);
        for (size_t i = 0; i < count; i++) {
            if (names[i] != NULL && strlen(names[i]) <= COMM_BYTES && !shared[i]) {
                out[i].nid = only_task_named(tasks, (size_t)task_count, names[i]);
            }
        }
    }
    free(shared);
    free(tasks);
}

typedef struct {
    pid_t nid;
    size_t index;
} nid_entry;

static int by_nid(const void *a, const void *b) {
    return by_pid(&((const nid_entry *)a)->nid, &((const nid_entry *)b)->nid);
}

/* Whether each nid is a task of this process: own_task where it says so; else tgkill with signal
 * 0, which sends nothing but fails with ESRCH for a thread not in the thread group, one syscall a
 * thread; where that is refused (a seccomp profile), the listing of /proc/self/task serves.
 * Returns -1 when neither can tell. */
static int mark_own(const native_thread *threads, size_t count, unsigned char *own) {
    pid_t pid = getpid();
    size_t i = 0;
    for (; i < count; i++) {
        own[i] = 0;
        if (threads[i].nid == 0) {
            continue;
        }
        if (threads[i].own_task || syscall(SYS_tgkill, pid, threads[i].nid, 0) == 0) {
            own[i] = 1;
        } else if (errno != ESRCH) {
            break;
        }
    }
    if (i == count) {
        return 0;
    }
    task_entry *tasks;
    long task_count = list_tasks(&tasks, 0);
    pid_t *listed = task_count >= 0 ? malloc((task_count > 0 ? (size_t)task_count : 1) * sizeof *listed) : NULL;
    if (listed == NULL) {
        free(tasks);
        return -1;
    }
    for (long k = 0; k < task_count; k++) {
        listed[k] = tasks[k].tid;
    }
    qsort(listed, (size_t)task_count, sizeof *listed, by_pid);
    for (i = 0; i < count; i++) {
        own[i] = threads[i].nid != 0
            && (threads[i].own_task || bsearch(&threads[i].nid, listed, (size_t)task_count, sizeof *listed, by_pid) != NULL);
    }
    free(listed);
    free(tasks);
    return 0;
}

void native_ids_keep_own(native_thread *threads, size_t count) {
    unsigned char *own = malloc(count > 0 ? count : 1);
    nid_entry *nids = malloc((count > 0 ? count : 1) * sizeof *nids);
    if (own == NULL || nids == NULL || mark_own(threads, count, own) != 0) {
        memset(threads, 0, count * sizeof *threads);
    } else {
        size_t n = 0;
        for (size_t i = 0; i < count; i++) {
            if (threads[i].nid != 0 && !own[i]) {
                threads[i] = (native_thread) { 0 };
            } else if (threads[i].nid != 0) {
                threads[i].own_task = 1;
                nids[n++] = (nid_entry) { threads[i].nid, i };
            }
        }
        qsort(nids, n, sizeof *nids, by_nid);
        for (size_t i = 0; i + 1 < n; i++) {
            if (nids[i].nid == nids[i + 1].nid) {
                threads[nids[i].index] = (native_thread) { 0 };
                threads[nids[i + 1].index] = (native_thread) { 0 };
            }
        }
    }
    free(nids);
    free(own);
}
