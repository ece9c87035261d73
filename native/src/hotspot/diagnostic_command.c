#include "diagnostic_command.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define COMMAND_LINE_MAX 1024

static int connect_to_own_listener(int timeout_seconds, char *error, size_t error_size) {
    struct sockaddr_un address = { .sun_family = AF_UNIX };
    snprintf(address.sun_path, sizeof address.sun_path, "/tmp/.java_pid%d", (int)getpid());
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        snprintf(error, error_size, "socket: %s", strerror(errno));
        return -1;
    }
    struct timeval timeout = { timeout_seconds, 0 };
    (void)setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout); /* without: a stuck listener is waited for */
    (void)setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
    if (connect(fd, (struct sockaddr *)&address, sizeof address) != 0) {
        if (errno == ENOENT) { /* the agent was loaded at start-up and nothing has attached since */
            snprintf(error, error_size, "the JVM's attach listener (%s) is not running: nothing attached to this JVM yet"
                     " (any attach starts it, e.g. jcmd <pid> VM.version)", address.sun_path);
        } else {
            snprintf(error, error_size, "the JVM's attach listener (%s) is not there: %s", address.sun_path, strerror(errno));
        }
        close(fd);
        return -1;
    }
    struct ucred peer;
    socklen_t peer_size = sizeof peer;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &peer_size) != 0 || peer.pid != getpid()) {
        /* a /tmp shared with another pid namespace can hold another JVM's socket of this pid */
        snprintf(error, error_size, "%s is not this JVM's attach listener", address.sun_path);
        close(fd);
        return -1;
    }
    return fd;
}

static int64_t now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec;
}

/* A read that a signal interrupted is tried again until the deadline: a socket with a receive
 * timeout is never restarted (signal(7)), and a profile signals the agent thread many times a
 * second (async-profiler's cpu and wall samples). */
static ssize_t read_until(int fd, char *buf, size_t size, int64_t deadline) {
    ssize_t n;
    do {
        n = read(fd, buf, size);
    } while (n < 0 && errno == EINTR && now_seconds() <= deadline);
    return n;
}

/* Everything the listener writes until it closes, NUL-terminated; NULL with error set. */
static char *read_answer(int fd, const char *command_line, size_t max_answer, int timeout_seconds, size_t *used,
                         char *error, size_t error_size) {
    size_t capacity = 64 * 1024;
    char *answer = malloc(capacity);
    ssize_t n = 0;
    int64_t deadline = now_seconds() + timeout_seconds;
    *used = 0;
    while (answer != NULL && (n = read_until(fd, answer + *used, capacity - *used - 1, deadline)) > 0) {
        *used += (size_t)n;
        if (capacity - *used - 1 == 0) {
            char *grown = capacity >= max_answer ? NULL : realloc(answer, capacity * 2);
            if (grown == NULL) {
                free(answer);
                answer = NULL;
            } else {
                answer = grown;
                capacity *= 2;
            }
        }
    }
    int read_errno = errno;
    if (answer == NULL) {
        snprintf(error, error_size, "%s: an answer of over %zu bytes, more than the agent takes", command_line, *used);
        return NULL;
    }
    if (n < 0) {
        snprintf(error, error_size, "%s: %s", command_line,
                 read_errno == EAGAIN ? "no answer from the JVM's attach listener in time" : strerror(read_errno));
        free(answer);
        return NULL;
    }
    answer[*used] = '\0';
    return answer;
}

char *diagnostic_command_run(const char *command_line, size_t max_answer, int timeout_seconds,
                             char *error, size_t error_size, size_t *length) {
    /* protocol 1: version, the operation, and its 3 arguments; jcmd's first is the command line */
    char request[COMMAND_LINE_MAX + 16];
    size_t command_length = strlen(command_line);
    if (command_length >= COMMAND_LINE_MAX) {
        snprintf(error, error_size, "diagnostic command too long");
        return NULL;
    }
    memcpy(request, "1\0jcmd\0", 7);
    memcpy(request + 7, command_line, command_length + 1);
    size_t request_length = 7 + command_length + 1;
    request[request_length++] = '\0';
    request[request_length++] = '\0';
    int fd = connect_to_own_listener(timeout_seconds, error, error_size);
    if (fd < 0) {
        return NULL;
    }
    if (write(fd, request, request_length) != (ssize_t)request_length) {
        snprintf(error, error_size, "cannot ask the JVM's attach listener: %s", strerror(errno));
        close(fd);
        return NULL;
    }
    size_t used = 0;
    char *answer = read_answer(fd, command_line, max_answer, timeout_seconds, &used, error, error_size);
    close(fd);
    if (answer == NULL) {
        return NULL;
    }
    if (strncmp(answer, "0\n", 2) != 0) { /* the listener's status line: 0 when the command ran */
        snprintf(error, error_size, "%s failed: %.120s", command_line, answer);
        free(answer);
        return NULL;
    }
    memmove(answer, answer + 2, used - 1); /* the text and its NUL */
    *length = used - 2;
    return answer;
}
