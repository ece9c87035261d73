/* Another user can make /tmp/.jvmti-cli-<uid> first (a directory, a link, a file) and answer in
 * the agent's place; the CLI refuses such a directory (AgentSocket.java). The agent takes the name
 * back only by steps that cannot be turned against it: nothing is followed (a link or a file is
 * unlinked, which never touches what it points to), a foreign directory is emptied relative to its
 * own descriptor and only of entries that are not directories (no recursion into what its owner
 * may rearrange meanwhile), then removed. In a sticky /tmp the kernel lets only root remove another
 * user's entry; for anyone else the attempt fails and the agent reports its directory unusable. */
#include "socket_dir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

/* A directory holding more than this is not emptied: the agent's start-up must stay short. */
#define FOREIGN_ENTRIES_LIMIT 4096

static int remove_entries(int dir_fd) {
    DIR *entries = fdopendir(dir_fd);
    if (entries == NULL) {
        close(dir_fd);
        return -1;
    }
    int status = 0;
    struct dirent *entry;
    for (int seen = 0; status == 0 && (entry = readdir(entries)) != NULL; seen++) {
        const char *name = entry->d_name;
        struct stat st;
        if (name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0'))) {
            continue;
        }
        if (seen >= FOREIGN_ENTRIES_LIMIT || fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0
                || S_ISDIR(st.st_mode) || (unlinkat(dir_fd, name, 0) != 0 && errno != ENOENT)) {
            status = -1;
        }
    }
    closedir(entries);
    return status;
}

static int remove_foreign(int parent_fd, const char *name) {
    struct stat st;
    if (fstatat(parent_fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
        return errno == ENOENT ? 0 : -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        return unlinkat(parent_fd, name, 0) == 0 || errno == ENOENT ? 0 : -1;
    }
    int fd = openat(parent_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 || remove_entries(fd) != 0) {
        return -1;
    }
    return unlinkat(parent_fd, name, AT_REMOVEDIR) == 0 || errno == ENOENT ? 0 : -1;
}

/* 1 when parent/name is our directory, now 0700; 0 when it is something else; -1 on failure. */
static int own_private_dir(int parent_fd, const char *name) {
    int fd = openat(parent_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        return errno == ELOOP || errno == ENOTDIR || errno == EACCES ? 0 : -1;
    }
    struct stat st;
    int mine = -1;
    if (fstat(fd, &st) == 0) {
        mine = st.st_uid == geteuid();
        if (mine && (st.st_mode & 077) != 0 && fchmod(fd, 0700) != 0) {
            mine = -1;
        }
    }
    close(fd);
    return mine;
}

int socket_dir_ensure(const char *parent, const char *name) {
    int parent_fd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (parent_fd < 0) {
        return -1;
    }
    int mine = -1;
    for (int attempt = 0; attempt < 2; attempt++) {
        if (mkdirat(parent_fd, name, 0700) != 0 && errno != EEXIST) {
            break;
        }
        mine = own_private_dir(parent_fd, name);
        if (mine != 0 || attempt > 0 || remove_foreign(parent_fd, name) != 0) {
            break;
        }
    }
    close(parent_fd);
    return mine == 1 ? 0 : -1;
}
