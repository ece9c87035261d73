/* A socket is stale when a connect() to it is refused: the kernel refuses exactly when no process
 * holds its listening end any more. That is true of a dead JVM's socket and stays true when its pid
 * has been reused by another process, JVM or not, without reading anything of that process; a live
 * agent's socket accepts (or, with a full backlog, asks to wait) even when its JVM is stopped or
 * its agent thread is busy. Entries are looked at and removed relative to the directory's
 * descriptor and never followed: a link, a non-socket or another user's file is left alone. */
#include "stale_sockets.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

/* A directory fuller than this is not swept to the end: the agent's start-up must stay short. */
#define SWEEP_LIMIT 4096

static int is_socket_name(const char *name) {
    size_t digits = strspn(name, "0123456789");
    return digits > 0 && strcmp(name + digits, ".sock") == 0;
}

static int nobody_listens(const char *dir, const char *name) {
    struct sockaddr_un addr;
    memset(&addr, 0, sizeof addr);
    addr.sun_family = AF_UNIX;
    if (snprintf(addr.sun_path, sizeof addr.sun_path, "%s/%s", dir, name) >= (int)sizeof addr.sun_path) {
        return 0;
    }
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) {
        return 0;
    }
    int refused = connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0 && errno == ECONNREFUSED;
    close(fd);
    return refused;
}

static int own_socket(int dir_fd, const char *name, struct stat *st) {
    return fstatat(dir_fd, name, st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISSOCK(st->st_mode) && st->st_uid == geteuid();
}

void stale_sockets_remove(const char *dir, const char *own_name) {
    int dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    if (dir_fd < 0) {
        return;
    }
    if (fstat(dir_fd, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077) != 0) {
        close(dir_fd);
        return;
    }
    DIR *entries = fdopendir(dir_fd);
    if (entries == NULL) {
        close(dir_fd);
        return;
    }
    struct dirent *entry;
    for (int seen = 0; seen < SWEEP_LIMIT && (entry = readdir(entries)) != NULL; seen++) {
        struct stat before, now;
        const char *name = entry->d_name;
        if (!is_socket_name(name) || strcmp(name, own_name) == 0 || !own_socket(dir_fd, name, &before)) {
            continue;
        }
        /* The same file still: not a socket a new JVM has just put under a reused pid's name. */
        if (nobody_listens(dir, name) && own_socket(dir_fd, name, &now) && now.st_ino == before.st_ino) {
            (void)unlinkat(dir_fd, name, 0); /* gone meanwhile is as good */
        }
    }
    closedir(entries);
}
