#include "perf_map.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void perf_map_path(char *buf, size_t cap) {
    snprintf(buf, cap, "/tmp/perf-%d.map", (int)getpid());
}

void perf_map_symbol(const char *class_signature, const char *method, char *out, size_t cap) {
    size_t n = 0;
    int dims = 0;
    const char *s = class_signature == NULL ? "?" : class_signature;
    while (*s == '[') {
        dims++;
        s++;
    }
    const char *primitive = NULL;
    switch (*s) {
    case 'Z': primitive = "boolean"; break;
    case 'B': primitive = "byte"; break;
    case 'C': primitive = "char"; break;
    case 'S': primitive = "short"; break;
    case 'I': primitive = "int"; break;
    case 'J': primitive = "long"; break;
    case 'F': primitive = "float"; break;
    case 'D': primitive = "double"; break;
    default: break;
    }
    if (cap == 0) {
        return;
    }
    if (primitive != NULL && s[1] == '\0') {
        n = (size_t)snprintf(out, cap, "%s", primitive);
    } else {
        if (*s == 'L') {
            s++;
        }
        for (; *s != '\0' && *s != ';' && n + 1 < cap; s++) {
            out[n++] = *s == '/' ? '.' : *s;
        }
        out[n] = '\0';
    }
    for (int i = 0; i < dims && n + 2 < cap; i++) {
        out[n++] = '[';
        out[n++] = ']';
        out[n] = '\0';
    }
    if (n < cap) {
        snprintf(out + n, cap - n, "::%s", method == NULL ? "?" : method);
    }
    /* a newline in a name would split the line */
    for (char *p = out; *p != '\0'; p++) {
        if (*p == '\n' || *p == '\r') {
            *p = ' ';
        }
    }
}

size_t perf_map_line(char *out, size_t cap, uint64_t start, uint64_t size, const char *symbol) {
    int n = snprintf(out, cap, "%" PRIx64 " %" PRIx64 " %s\n", start, size, symbol);
    if (n < 0) {
        return 0;
    }
    if ((size_t)n >= cap) {
        out[cap - 2] = '\n';
        out[cap - 1] = '\0';
        return cap - 1;
    }
    return (size_t)n;
}

void perf_map_init(perf_map *m, const char *path) {
    m->fd = -1;
    snprintf(m->path, sizeof m->path, "%s", path);
    m->error[0] = '\0';
}

int perf_map_begin(perf_map *m, int *tmp_fd, char *tmp_path, size_t cap) {
    const char *slash = strrchr(m->path, '/');
    int dir_len = slash == NULL ? 0 : (int)(slash - m->path);
    if (snprintf(tmp_path, cap, "%.*s/.%s.XXXXXX", dir_len, m->path, slash == NULL ? m->path : slash + 1) >= (int)cap) {
        snprintf(m->error, sizeof m->error, "perf map path too long");
        return -1;
    }
    /* mkostemp opens with O_CREAT|O_EXCL: a planted name, link or not, is never opened */
    *tmp_fd = mkostemp(tmp_path, O_CLOEXEC | O_APPEND | O_NOFOLLOW);
    if (*tmp_fd < 0) {
        snprintf(m->error, sizeof m->error, "cannot create a file next to %s: %s", m->path, strerror(errno));
        return -1;
    }
    if (fchmod(*tmp_fd, 0644) != 0) {
        snprintf(m->error, sizeof m->error, "cannot make %s readable: %s", tmp_path, strerror(errno));
        close(*tmp_fd);
        unlink(tmp_path);
        return -1;
    }
    return 0;
}

int perf_map_write(int fd, const char *data, size_t len) {
    while (len > 0) {
        ssize_t n = write(fd, data, len);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return -1;
        }
        data += n;
        len -= (size_t)n;
    }
    return 0;
}

int perf_map_commit(perf_map *m, int tmp_fd, const char *tmp_path) {
    struct stat st;
    if (lstat(m->path, &st) == 0) {
        const char *why = NULL;
        if (S_ISLNK(st.st_mode)) {
            why = "it is a symbolic link";
        } else if (!S_ISREG(st.st_mode)) {
            why = "it is not a regular file";
        } else if (st.st_uid != geteuid()) {
            why = "it belongs to another user";
        }
        if (why != NULL) {
            snprintf(m->error, sizeof m->error, "refusing to replace %s: %s", m->path, why);
            close(tmp_fd);
            unlink(tmp_path);
            return -1;
        }
    } else if (errno != ENOENT) {
        snprintf(m->error, sizeof m->error, "cannot check %s: %s", m->path, strerror(errno));
        close(tmp_fd);
        unlink(tmp_path);
        return -1;
    }
    /* rename never follows a link at the destination; in a sticky /tmp it cannot replace a
     * file another user planted there after the check */
    if (rename(tmp_path, m->path) != 0) {
        snprintf(m->error, sizeof m->error, "cannot write %s: %s", m->path, strerror(errno));
        close(tmp_fd);
        unlink(tmp_path);
        return -1;
    }
    perf_map_close(m);
    m->fd = tmp_fd;
    return 0;
}

void perf_map_close(perf_map *m) {
    if (m->fd >= 0) {
        close(m->fd);
        m->fd = -1;
    }
}
