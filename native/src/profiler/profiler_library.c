#include "profiler_library.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent.h"
#include "jni_util.h"
#include "profiler_pin.h"
#include "sha256.h"

/* async-profiler's library is under a megabyte; anything far larger is not it. */
#define PROFILER_MAX_BYTES (64L * 1024 * 1024)
/* async-profiler holds local references on the calling thread to every live thread while it names
 * the threads (updateJavaThreadNames: GetAllThreads' one to the thread, GetThreadInfo's to its group
 * and context class loader, none deleted before it returns), in its caller's frame up to 4.5; 4.6
 * pushes a frame of 64 of its own around them, which no frame here can widen (docs/profiling.md).
 * HotSpot's MaxJNILocalCapacity: the largest frame it grants; past it (~20,000 threads) the checker
 * warns, and popping the frame still lets every reference go. */
#define PROFILER_MAX_FRAME_LOCALS 65536

typedef const char *(*execute_fn)(const char *command, profiler_writer writer);
typedef const char *(*error_str_fn)(const char *error);

/* Set once by the agent thread, which alone runs commands. */
static execute_fn execute;
static error_str_fn error_str;

/* The SHA-256 of what fd holds, read from its start; 0, or -1 with why in message. */
static int hash_file(int fd, const struct stat *st, char hex[65], char *message, size_t cap) {
    sha256 h;
    sha256_init(&h);
    char chunk[65536];
    off_t at = 0;
    while (at < st->st_size) {
        ssize_t n = pread(fd, chunk, sizeof chunk, at);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            snprintf(message, cap, "cannot read the profiling library: %s", n < 0 ? strerror(errno) : "it shrank while read");
            return -1;
        }
        sha256_update(&h, chunk, (size_t)n);
        at += n;
    }
    sha256_hex(&h, hex);
    return 0;
}

/* Opens path and checks it is the pinned library; the open fd, or -1 with why in message. The
 * path comes from a request: O_NONBLOCK so that a FIFO (or a device) there cannot hold the agent
 * thread in open(), which fstat then refuses as not a regular file. */
static int open_pinned(const char *path, char *message, size_t cap) {
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        snprintf(message, cap, "cannot open the profiling library %s: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    char hex[65];
    if (fstat(fd, &st) != 0) {
        snprintf(message, cap, "cannot stat the profiling library %s: %s", path, strerror(errno));
    } else if (!S_ISREG(st.st_mode) || (st.st_mode & (S_IWUSR | S_IWGRP | S_IWOTH)) != 0) {
        snprintf(message, cap, "refusing the profiling library %s: it must be a regular file nobody can write to", path);
    } else if (st.st_size > PROFILER_MAX_BYTES) {
        snprintf(message, cap, "refusing the profiling library %s: %lld bytes is not async-profiler %s", path,
                 (long long)st.st_size, PROFILER_LIBRARY_VERSION);
    } else if (hash_file(fd, &st, hex, message, cap) == 0) {
        if (strcmp(hex, PROFILER_LIBRARY_SHA256) == 0) {
            return fd;
        }
        snprintf(message, cap, "refusing the profiling library %s: its SHA-256 is %s, not the %s this agent was built with "
                 "(async-profiler %s)", path, hex, PROFILER_LIBRARY_SHA256, PROFILER_LIBRARY_VERSION);
    }
    close(fd);
    return -1;
}

int profiler_library_load(const char *path, char *message, size_t cap) {
    int fd = open_pinned(path, message, cap);
    if (fd < 0) {
        return -1;
    }
    if (execute != NULL) {
        close(fd);
        return 0;
    }
    char by_fd[64];
    snprintf(by_fd, sizeof by_fd, "/proc/self/fd/%d", fd);
    void *library = dlopen(by_fd, RTLD_NOW | RTLD_LOCAL);
    close(fd);
    if (library == NULL) {
        const char *why = dlerror();
        snprintf(message, cap, "cannot load the profiling library %s: %s", path, why == NULL ? "dlopen failed" : why);
        return -1;
    }
    void (*init)(void) = (void (*)(void))dlsym(library, "asprof_init");
    execute_fn found_execute = (execute_fn)dlsym(library, "asprof_execute");
    error_str_fn found_error_str = (error_str_fn)dlsym(library, "asprof_error_str");
    if (init == NULL || found_execute == NULL || found_error_str == NULL) {
        /* the pinned library has them all */
        snprintf(message, cap, "the profiling library %s lacks async-profiler's C API", path);
        dlclose(library);
        return -1;
    }
    init();
    error_str = found_error_str;
    execute = found_execute;
    return 0;
}

static void discard(const char *buf, size_t size) {
    (void)buf;
    (void)size;
}

/* Each command runs in a local frame as large as HotSpot allows: async-profiler keeps references
 * to every thread while it names them (see above), and past a frame's capacity the JNI checker
 * warns at its next JNI call (a Kafka broker's ~100 threads did, at every profile). A frame's
 * capacity costs nothing until references fill it (HotSpot adds handle blocks as they are used),
 * and the frame lets them all go when the command returns, also when the caller is in no frame of
 * its own (the agent thread never returns to Java). When no frame can be had (no memory, or jni is
 * NULL: a thread the JVM does not know), the command runs in the caller's: stopping the profiler and
 * reading its profile matter more than the warning. */
const char *profiler_execute(JNIEnv *jni, const char *command, profiler_writer writer) {
    int framed = jni != NULL && (*jni)->PushLocalFrame(jni, PROFILER_MAX_FRAME_LOCALS) == 0;
    if (jni != NULL && !framed) {
        jni_cleared_exception(jni);
    }
    const char *error = execute(command, writer == NULL ? discard : writer);
    if (jni != NULL) {
        /* async-profiler does not check every Java call it makes on this thread (4.5's start of a
         * JFR recording calls Thread.setDaemon for its timer thread and checks nothing after it):
         * checked here, so that nothing it threw stays pending and the JNI checker does not
         * charge the thread's next JNI call with the missing check (docs/pauses.md) */
        jni_cleared_exception(jni);
    }
    if (framed) {
        (*jni)->PopLocalFrame(jni, NULL);
    }
    return error == NULL ? NULL : error_str(error);
}

const char *profiler_library_version(void) {
    return PROFILER_LIBRARY_VERSION;
}
