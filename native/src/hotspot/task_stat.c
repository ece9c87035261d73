#include "task_stat.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"

/* Fields are counted from 1 as proc(5) does: after "pid (comm)", which may hold spaces and
 * parentheses (hence the last ')'), come state (3) ... utime (14), stime (15) ... nice (19) ...
 * starttime (22). */
#define FIELD_UTIME 14
#define FIELD_STIME 15
#define FIELD_NICE 19
#define FIELD_STARTTIME 22

/* Where the field begins in a stat line, or NULL when the line ends before it. */
static const char *stat_field(const char *line, int field) {
    const char *p = strrchr(line, ')');
    if (p == NULL) {
        return NULL;
    }
    p++;
    for (int at = 3;; at++) {
        while (*p == ' ') p++;
        if (*p == '\0' || *p == '\n') {
            return NULL;
        }
        if (at == field) {
            return p;
        }
        while (*p != ' ' && *p != '\0' && *p != '\n') p++;
    }
}

static int parse_unsigned(const char *line, int field, unsigned long long *out) {
    const char *p = stat_field(line, field);
    char *end;
    if (p == NULL || *p == '-') {
        return -1;
    }
    *out = strtoull(p, &end, 10);
    return end != p ? 0 : -1;
}

int task_stat_parse(const char *line, long *nice, unsigned long long *start_ticks) {
    const char *p = stat_field(line, FIELD_NICE);
    char *end;
    if (p == NULL || parse_unsigned(line, FIELD_STARTTIME, start_ticks) != 0) {
        return -1;
    }
    *nice = strtol(p, &end, 10);
    return end != p ? 0 : -1;
}

int task_stat_parse_cpu(const char *line, unsigned long long *user_ticks, unsigned long long *system_ticks) {
    return parse_unsigned(line, FIELD_UTIME, user_ticks) == 0 && parse_unsigned(line, FIELD_STIME, system_ticks) == 0 ? 0 : -1;
}

static int64_t clock_millis(clockid_t clock) {
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The task's stat line into line (size bytes); returns 0, or -1 when the task is gone. */
static int read_line(pid_t nid, char *line, size_t size) {
    char path[48];
    snprintf(path, sizeof path, "/proc/self/task/%d/stat", (int)nid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return -1;
    }
    ssize_t n = read(fd, line, size - 1);
    close(fd);
    if (n <= 0) {
        return -1;
    }
    line[n] = '\0';
    return 0;
}

static int read_stat(pid_t nid, long *nice, unsigned long long *start_ticks) {
    char line[1024];
    return read_line(nid, line, sizeof line) == 0 ? task_stat_parse(line, nice, start_ticks) : -1;
}

int task_stat_read_cpu(pid_t nid, task_cpu *out) {
    long ticks_per_second = sysconf(_SC_CLK_TCK);
    char line[1024];
    unsigned long long user_ticks, system_ticks;
    if (ticks_per_second <= 0 || read_line(nid, line, sizeof line) != 0 || task_stat_parse_cpu(line, &user_ticks, &system_ticks) != 0) {
        return -1;
    }
    out->user_nanos = (int64_t)(user_ticks * (1000000000ULL / (unsigned long long)ticks_per_second));
    out->system_nanos = (int64_t)(system_ticks * (1000000000ULL / (unsigned long long)ticks_per_second));
    return 0;
}

/* starttime counts from boot (CLOCK_BOOTTIME, suspend included) */
static int64_t started_millis(unsigned long long start_ticks, long ticks_per_second) {
    int64_t since_boot = (int64_t)(start_ticks * 1000 / (unsigned long long)ticks_per_second);
    return clock_millis(CLOCK_REALTIME) - (clock_millis(CLOCK_BOOTTIME) - since_boot);
}

int task_stat_read(pid_t nid, task_stat *out) {
    long ticks_per_second = sysconf(_SC_CLK_TCK);
    long nice;
    unsigned long long start_ticks;
    if (ticks_per_second <= 0 || read_stat(nid, &nice, &start_ticks) != 0) {
        return -1;
    }
    out->nice = (int)nice;
    out->started_millis = started_millis(start_ticks, ticks_per_second);
    return 0;
}

typedef struct {
    int64_t id;
    pid_t nid;
    unsigned long long start_ticks;
} known_start;

/* The start times read by the last task_stat_read_threads, by Java id. */
static struct {
    known_start *starts;
    size_t count;
} known;

static int by_id(const void *a, const void *b) {
    int64_t x = ((const known_start *)a)->id;
    int64_t y = ((const known_start *)b)->id;
    return (x > y) - (x < y);
}

void task_stat_read_threads(const int64_t *ids, const pid_t *nids, size_t count, task_stat *out, unsigned char *ok) {
    long ticks_per_second = sysconf(_SC_CLK_TCK);
    known_start *starts = malloc((count > 0 ? count : 1) * sizeof *starts);
    size_t kept = 0;
    memset(ok, 0, count);
    for (size_t i = 0; i < count && ticks_per_second > 0; i++) {
        if (nids[i] <= 0) {
            continue;
        }
        known_start key = { ids[i], nids[i], 0 };
        const known_start *seen = known.count == 0 ? NULL : bsearch(&key, known.starts, known.count, sizeof key, by_id);
        long nice;
        if (seen != NULL && seen->nid == nids[i]) {
            errno = 0;
            nice = getpriority(PRIO_PROCESS, (id_t)nids[i]);
            if (nice == -1 && errno != 0) {
                continue; /* the task is gone */
            }
            key.start_ticks = seen->start_ticks;
        } else if (read_stat(nids[i], &nice, &key.start_ticks) != 0) {
            continue;
        }
        out[i] = (task_stat) { (int)nice, started_millis(key.start_ticks, ticks_per_second) };
        ok[i] = 1;
        if (starts != NULL) {
            starts[kept++] = key;
        }
    }
    free(known.starts);
    known.starts = starts;
    known.count = kept;
    if (starts != NULL) {
        qsort(known.starts, known.count, sizeof *known.starts, by_id);
    }
}

void task_stat_forget(void) {
    free(known.starts);
    known.starts = NULL;
    known.count = 0;
}
AGENT_FORGET(task_stat_forget)
