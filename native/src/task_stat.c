#include "task_stat.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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

int task_stat_read(pid_t nid, task_stat *out) {
    char path[48];
    char line[1024];
    snprintf(path, sizeof path, "/proc/self/task/%d/stat", (int)nid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return -1;
    }
    ssize_t n = read(fd, line, sizeof line - 1);
    close(fd);
    long ticks_per_second = sysconf(_SC_CLK_TCK);
    long nice;
    unsigned long long start_ticks;
    if (n <= 0 || ticks_per_second <= 0) {
        return -1;
    }
    line[n] = '\0';
    if (task_stat_parse(line, &nice, &start_ticks) != 0) {
        return -1;
    }
    /* starttime counts from boot (CLOCK_BOOTTIME, suspend included) */
    int64_t since_boot = (int64_t)(start_ticks * 1000 / (unsigned long long)ticks_per_second);
    out->nice = (int)nice;
    out->started_millis = clock_millis(CLOCK_REALTIME) - (clock_millis(CLOCK_BOOTTIME) - since_boot);
    return 0;
}
