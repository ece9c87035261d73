/* The JVM's perf map, /tmp/perf-<pid>.map, which Linux perf reads to name JIT frames: one
 * "START SIZE name" line per piece of code, START and SIZE in hex without 0x. Only that fixed
 * path (this process's /tmp and pid) is ever written. It is written to a new private file
 * (O_CREAT|O_EXCL|O_NOFOLLOW, so nothing planted is followed), made 0644 and renamed into place;
 * an existing map that is a link, not a regular file, or not ours is refused, never replaced. */
#ifndef JVMTICLI_PERF_MAP_H
#define JVMTICLI_PERF_MAP_H

#include <stddef.h>
#include <stdint.h>

/* /tmp/perf-<getpid()>.map */
void perf_map_path(char *buf, size_t cap);

/* A symbol for perf from a class signature ("Lp/C;", "[I") and a method name: "p.C::m". */
void perf_map_symbol(const char *class_signature, const char *method, char *out, size_t cap);

/* One map line into out; returns its length. */
size_t perf_map_line(char *out, size_t cap, uint64_t start, uint64_t size, const char *symbol);

typedef struct {
    int fd;             /* the current map, open for appending; -1 when closed */
    char path[64];
    char error[160];    /* why the last call failed */
} perf_map;

void perf_map_init(perf_map *m, const char *path);

/* Starts a new map: a private temporary file, left open in m->fd; 0 or -1 (m->error). */
int perf_map_begin(perf_map *m, int *tmp_fd, char *tmp_path, size_t cap);
/* Writes bytes to a file descriptor; 0 or -1. */
int perf_map_write(int fd, const char *data, size_t len);
/* Puts the temporary file in place of the map (refusing a link or a file not ours); on success
 * the map stays open in m->fd for appending. 0 or -1 (m->error; the temporary file is removed). */
int perf_map_commit(perf_map *m, int tmp_fd, const char *tmp_path);
void perf_map_close(perf_map *m);

#endif
