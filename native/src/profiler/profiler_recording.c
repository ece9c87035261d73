#include "profiler_recording.h"

#include <errno.h>
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
