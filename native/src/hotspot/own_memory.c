#include "own_memory.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/uio.h>
#include <unistd.h>

/* process_vm_readv takes at most IOV_MAX (1024) elements a call. */
#define BATCH 256

/* Where a seccomp filter refuses process_vm_readv (some container profiles), /proc/self/mem
 * serves; both check the range against the mappings and report EFAULT or EIO instead of faulting. */
static void read_proc_mem(own_read *reads, size_t count) {
    int fd = open("/proc/self/mem", O_RDONLY | O_CLOEXEC);
    for (size_t i = 0; fd >= 0 && i < count; i++) {
        if (reads[i].address != 0 && reads[i].address <= (uintptr_t)INT64_MAX - reads[i].size) {
            reads[i].ok = pread(fd, reads[i].into, reads[i].size, (off_t)reads[i].address) == (ssize_t)reads[i].size;
        }
    }
    if (fd >= 0) {
        close(fd);
    }
}

/* The reads from reads[0] on, up to BATCH of them, in one call. The call stops at the first
 * element it cannot read: returns how many reads it settled (ok or not), at least one. */
static size_t read_batch(own_read *reads, size_t count, int *refused) {
    struct iovec local[BATCH];
    struct iovec remote[BATCH];
    size_t index[BATCH];
    size_t n = 0;
    size_t i = 0;
    for (; i < count && n < BATCH; i++) {
        if (reads[i].address != 0) {
            local[n] = (struct iovec) { reads[i].into, reads[i].size };
            remote[n] = (struct iovec) { (void *)reads[i].address, reads[i].size };
            index[n++] = i;
        }
    }
    if (n == 0) {
        return i;
    }
    ssize_t got = process_vm_readv(getpid(), local, n, remote, n, 0);
    if (got < 0 && (errno == ENOSYS || errno == EPERM)) {
        *refused = 1;
        return 0;
    }
    size_t whole = 0;
    for (size_t done = 0; whole < n && got >= 0 && done + local[whole].iov_len <= (size_t)got; whole++) {
        done += local[whole].iov_len;
        reads[index[whole]].ok = 1;
    }
    /* read up to the first failed element, which is settled as failed */
    return whole == n ? i : index[whole] + 1;
}

void own_memory_read_each(own_read *reads, size_t count) {
    for (size_t i = 0; i < count; i++) {
        reads[i].ok = 0;
    }
    int refused = 0;
    for (size_t i = 0; i < count && !refused;) {
        size_t settled = read_batch(reads + i, count - i, &refused);
        if (refused) {
            read_proc_mem(reads + i, count - i);
        }
        i += settled;
    }
}
