/*
 * Keeps the agent loadable into a JVM on any glibc since 2.17 (async-profiler's baseline too):
 * native/pom.xml compiles every agent file with -include of this header, and
 * test/glibc_baseline fails the build when the library imports any symbol versioned later.
 *
 * The dl* and pthread_create/pthread_join functions moved from libdl and libpthread into libc in
 * glibc 2.34 under a new version; their first version is still exported by every glibc, so each
 * reference is bound to it (and libdl and libpthread, where older glibc keeps them, are linked). stat and friends were inline wrappers around __fxstat
 * before 2.33, so older glibc exports no fstat at all: the agent makes the system call itself,
 * into the struct stat glibc's own fstatat fills the same way on x86-64 and aarch64.
 */
#ifndef GLIBC_COMPAT_H
#define GLIBC_COMPAT_H

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
#define GLIBC_COMPAT_BASE "GLIBC_2.2.5"
#elif defined(__aarch64__)
#define GLIBC_COMPAT_BASE "GLIBC_2.17"
#else
#error "no glibc baseline known for this architecture"
#endif

__asm__(".symver dlopen,dlopen@" GLIBC_COMPAT_BASE);
__asm__(".symver dlsym,dlsym@" GLIBC_COMPAT_BASE);
__asm__(".symver dladdr,dladdr@" GLIBC_COMPAT_BASE);
__asm__(".symver dlclose,dlclose@" GLIBC_COMPAT_BASE);
__asm__(".symver dlerror,dlerror@" GLIBC_COMPAT_BASE);
__asm__(".symver pthread_create,pthread_create@" GLIBC_COMPAT_BASE);
__asm__(".symver pthread_join,pthread_join@" GLIBC_COMPAT_BASE);

static inline int glibc_compat_fstatat(int dir_fd, const char *path, struct stat *st, int flags) {
    return (int)syscall(SYS_newfstatat, dir_fd, path, st, flags);
}

#define fstatat(dir_fd, path, st, flags) glibc_compat_fstatat((dir_fd), (path), (st), (flags))
#define fstat(fd, st) glibc_compat_fstatat((fd), "", (st), AT_EMPTY_PATH)
#define lstat(path, st) glibc_compat_fstatat(AT_FDCWD, (path), (st), AT_SYMLINK_NOFOLLOW)

#endif
