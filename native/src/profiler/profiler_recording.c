#include "profiler_recording.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base64.h"

/* Raw bytes per base64 piece: 64 KiB once encoded. */
#define PIECE_BYTES (48 * 1024)
#define MFD_CLOEXEC_FLAG 1u /* MFD_CLOEXEC: glibc 2.27 has memfd_create, the agent's baseline does not */

int profiler_recording_create(const char *name) {
    return (int)syscall(SYS_memfd_create, name, MFD_CLOEXEC_FLAG);
}

int64_t profiler_recording_bytes(int fd, const struct stat *made, int *same) {
    struct stat st;
    if (fstat(fd, &st) != 0) {
        *same = 0;
        return -1;
    }
    *same = st.st_dev == made->st_dev && st.st_ino == made->st_ino;
    return (int64_t)st.st_size;
}

void profiler_recording_write(json_writer *w, int fd, int64_t max_bytes) {
    struct stat st;
    if (fstat(fd, &st) != 0) {
        json_field_cstring(w, "recordingError", strerror(errno));
        return;
    }
    json_field_int(w, "recordingBytes", (int64_t)st.st_size);
    if (st.st_size > max_bytes) {
        json_field_cstring(w, "recordingError", "the recording is larger than the agent sends: try a shorter window");
        return;
    }
    unsigned char *piece = malloc(PIECE_BYTES);
    char *encoded = malloc(base64_encoded_size(PIECE_BYTES));
    json_begin_array_field(w, "recording");
    const char *error = piece == NULL || encoded == NULL ? "out of memory for the recording's pieces" : NULL;
    off_t at = 0;
    while (at < st.st_size && error == NULL) {
        ssize_t n = pread(fd, piece, PIECE_BYTES, at);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            error = n < 0 ? strerror(errno) : "the recording shrank while read";
            break;
        }
        size_t length = base64_encode(piece, (size_t)n, encoded);
        json_string(w, encoded, length);
        at += n;
    }
    json_end_array(w);
    if (error != NULL) {
        json_field_cstring(w, "recordingError", error);
    }
    free(piece);
    free(encoded);
}

int profiler_recording_open_elsewhere(int fd) {
    struct stat ours;
    int dir_fd = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fstat(fd, &ours) != 0 || dir_fd < 0) {
        if (dir_fd >= 0) {
            close(dir_fd);
        }
        return -1;
    }
    DIR *entries = fdopendir(dir_fd);
    if (entries == NULL) {
        close(dir_fd);
        return -1;
    }
    int found = 0;
    struct dirent *entry;
    while (!found && (entry = readdir(entries)) != NULL) {
        char *end;
        long other = strtol(entry->d_name, &end, 10);
        struct stat st;
        /* fstatat follows the link to the open file itself; the directory's own descriptor is skipped with ours */
        if (*end == '\0' && end != entry->d_name && other != fd && other != dir_fd
                && fstatat(dir_fd, entry->d_name, &st, 0) == 0 && st.st_dev == ours.st_dev && st.st_ino == ours.st_ino) {
            found = 1;
        }
    }
    closedir(entries);
    return found;
}
