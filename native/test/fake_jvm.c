/* A process that looks like a JVM from outside (its maps name a libjvm.so) but runs on another C
 * library than the agent's: built with musl-gcc, or statically with glibc and given a file to map
 * as an old glibc's libc. It maps each file given, prints "READY <pid>" and waits for its stdin to
 * close. It catches no signal: a SIGQUIT sent to attach would end it.
 * Usage: fake_jvm FILE... */
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        int fd = open(argv[i], O_RDONLY | O_CLOEXEC);
        struct stat st;
        if (fd < 0 || fstat(fd, &st) != 0 || st.st_size == 0
                || mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0) == MAP_FAILED) {
            perror(argv[i]);
            return 1;
        }
        close(fd);
    }
    printf("READY %ld\n", (long)getpid());
    fflush(stdout);
    char buffer[256];
    while (read(STDIN_FILENO, buffer, sizeof buffer) > 0) {
    }
    return 0;
}
