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
 * parentheses (hence the last ')'), come state (3) ... nice (19) ... starttime (22). */
#define FIELD_NICE 19
#define FIELD_STARTTIME 22

int task_stat_parse(const char *line, long *nice, unsigned long long *start_ticks) {
    const char *p = strrchr(line, ')');
    if (p == NULL) {
        return -1;
    }
    p++;
    int found = 0;
    for (int field = 3; field <= FIELD_STARTTIME; field++) {
        while (*p == ' ') p++;
        if (*p == '\0' || *p == '\n') {
            return -1;
        }
        char *end;
        if (field == FIELD_NICE) {
            *nice = strtol(p, &end, 10);
            found += end != p;
        } else if (field == FIELD_STARTTIME) {
            *start_ticks = strtoull(p, &end, 10);
            found += end != p;
        }
        while (*p != ' ' && *p != '\0' && *p != '\n') p++;
    }
    return found == 2 ? 0 : -1;
}

static int64_t clock_millis(clockid_t clock) {
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int read_stat(pid_t nid, long *nice, unsigned long long *start_ticks) {
    char path[48];
    char line[1024];
    snprintf(path, sizeof path, "/proc/self/task/%d/stat", (int)nid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return -1;
    }
    ssize_t n = read(fd, line, sizeof line - 1);
    close(fd);
    if (n <= 0) {
        return -1;
    }
    line[n] = '\0';
    return task_stat_parse(line, nice, start_ticks);
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
