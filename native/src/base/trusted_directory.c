#include "trusted_directory.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Why the component name in the directory dir could not be opened as a directory. */
static void say_why_not(int dir, const char *path, const char *name, int open_errno, char *error, size_t error_size) {
    struct stat st;
    if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)) {
        snprintf(error, error_size, "%s: %s is a symbolic link (name the directory by its real path)", path, name);
    } else if (open_errno == ENOTDIR) {
        snprintf(error, error_size, "%s: %s is not a directory", path, name);
    } else {
        snprintf(error, error_size, "%s: %s: %s", path, name, strerror(open_errno));
    }
}

/* 0 when st is a directory whose entries only root and this user can change (last: that no one
 * else can write at all), else -1 with the reason in error. */
static int check(const struct stat *st, int last, const char *path, const char *name, char *error, size_t error_size) {
    uid_t self = geteuid();
    int others_write = (st->st_mode & (S_IWGRP | S_IWOTH)) != 0;
    if (st->st_uid != 0 && st->st_uid != self) {
        snprintf(error, error_size, "%s: %s belongs to uid %u, neither root nor the JVM's user (uid %u)", path, name,
                 (unsigned)st->st_uid, (unsigned)self);
        return -1;
    }
    if (others_write && (last || (st->st_mode & S_ISVTX) == 0)) {
        snprintf(error, error_size, "%s: %s can be written by %s (mode %04o): name a directory only the JVM's user can write",
                 path, name, (st->st_mode & S_IWOTH) ? "anyone" : "its group", (unsigned)(st->st_mode & 07777));
        return -1;
    }
    return 0;
}

int trusted_directory_open(const char *path, char *error, size_t error_size) {
    char copy[PATH_MAX];
    if (path[0] != '/' || strlen(path) >= sizeof copy) {
        snprintf(error, error_size, "%.200s: not an absolute path (as the JVM sees it)", path);
        return -1;
    }
    strcpy(copy, path);
    int dir = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0) {
        snprintf(error, error_size, "/: %s", strerror(errno));
        return -1;
    }
    char *save = NULL;
    const char *name = "/";
    char *next = strtok_r(copy, "/", &save);
    for (;;) {
        struct stat st;
        if (fstat(dir, &st) != 0) {
            snprintf(error, error_size, "%s: %s: %s", path, name, strerror(errno));
            close(dir);
            return -1;
        }
        if (check(&st, next == NULL, path, name, error, error_size) != 0) {
            close(dir);
            return -1;
        }
        if (next == NULL) {
            return dir;
        }
        if (strcmp(next, ".") == 0 || strcmp(next, "..") == 0) {
            snprintf(error, error_size, "%s: name the directory without . or ..", path);
            close(dir);
            return -1;
        }
        int child = openat(dir, next, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (child < 0) {
            say_why_not(dir, path, next, errno, error, error_size);
            close(dir);
            return -1;
        }
        close(dir);
        dir = child;
        name = next;
        next = strtok_r(NULL, "/", &save);
    }
}
