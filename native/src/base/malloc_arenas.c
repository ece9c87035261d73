#include "malloc_arenas.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HEAP_MAX ((uint64_t)64 << 20) /* glibc's HEAP_MAX_SIZE on 64-bit: 2 * DEFAULT_MMAP_THRESHOLD_MAX */
#define LINE_MAX_BYTES 512

typedef struct {
    uint64_t start, end;
    int read_write;
    int anonymous;
    int break_heap;
    uint64_t resident;
} mapping;

/* glibc's heap_info, its first four words (malloc/arena.c): the same from 2.17 to 2.41. */
typedef struct {
    uint64_t arena;
    uint64_t prev;
    uint64_t size;
    uint64_t mprotect_size;
} heap_header;

/* 1 if the mapping opens with the header of an arena's heap, counting it in out. */
static int arena_heap(int mem, const mapping *m, int *first) {
    heap_header h;
    if (!m->read_write || !m->anonymous || m->start % HEAP_MAX != 0 || m->end - m->start > HEAP_MAX
            || pread(mem, &h, sizeof h, (off_t)m->start) != (ssize_t)sizeof h) {
        return 0;
    }
    if (h.mprotect_size != m->end - m->start || h.size == 0 || h.size > h.mprotect_size) {
        return 0;
    }
    /* the header is padded to malloc's alignment: 32 bytes, or 48 from glibc 2.35 (its pagesize field) */
    *first = h.prev == 0 && (h.arena == m->start + 32 || h.arena == m->start + 48);
    int later = h.prev != 0 && h.prev % HEAP_MAX == 0 && h.prev != m->start && h.arena / HEAP_MAX * HEAP_MAX != m->start;
    return *first || later;
}

static void count(int mem, const mapping *m, malloc_arenas *out) {
    if (m->end == 0) {
        return;
    }
    int first = 0;
    if (m->break_heap) {
        out->main_found = 1;
        out->main_bytes += m->end - m->start;
        out->main_resident += m->resident;
    } else if (arena_heap(mem, m, &first)) {
        out->heaps++;
        out->arenas += (uint32_t)first;
        out->heap_bytes += m->end - m->start;
        out->heap_resident += m->resident;
    }
}

/* A mapping's first line: "start-end perms offset dev inode [path]". */
static int parse_header(const char *line, mapping *m) {
    unsigned long long start, end, inode;
    char perms[8];
    int path_at = 0;
    if (sscanf(line, "%llx-%llx %7s %*s %*s %llu %n", &start, &end, perms, &inode, &path_at) != 4) {
        return 0;
    }
    memset(m, 0, sizeof *m);
    m->start = start;
    m->end = end;
    m->read_write = perms[0] == 'r' && perms[1] == 'w';
    const char *path = line + path_at;
    m->anonymous = inode == 0 && (*path == '\0' || *path == '\n');
    m->break_heap = strncmp(path, "[heap]", 6) == 0;
    return 1;
}

int malloc_arenas_read(malloc_arenas *out, const char **error) {
    memset(out, 0, sizeof *out);
    FILE *smaps = fopen("/proc/self/smaps", "re");
    if (smaps == NULL) {
        *error = "/proc/self/smaps cannot be read";
        return -1;
    }
    int mem = open("/proc/self/mem", O_RDONLY | O_CLOEXEC);
    if (mem < 0) {
        fclose(smaps);
        *error = "/proc/self/mem cannot be read";
        return -1;
    }
    char line[LINE_MAX_BYTES];
    mapping m = { 0 };
    unsigned long long kilobytes;
    while (fgets(line, sizeof line, smaps) != NULL) {
        size_t length = strlen(line);
        int whole = length > 0 && line[length - 1] == '\n';
        mapping next;
        if (parse_header(line, &next)) {
            count(mem, &m, out);
            m = next;
        } else if (sscanf(line, "Rss: %llu kB", &kilobytes) == 1) {
            m.resident = (uint64_t)kilobytes * 1024;
        }
        while (!whole && fgets(line, sizeof line, smaps) != NULL) { /* the rest of a longer line (a long path) */
            length = strlen(line);
            whole = length > 0 && line[length - 1] == '\n';
        }
    }
    count(mem, &m, out);
    close(mem);
    fclose(smaps);
    return 0;
}

void malloc_arenas_write(json_writer *w, const malloc_arenas *a) {
    json_field_bool(w, "mainFound", a->main_found);
    json_field_int(w, "mainBytes", (int64_t)a->main_bytes);
    json_field_int(w, "mainResident", (int64_t)a->main_resident);
    json_field_int(w, "arenas", a->arenas);
    json_field_int(w, "heaps", a->heaps);
    json_field_int(w, "heapBytes", (int64_t)a->heap_bytes);
    json_field_int(w, "heapResident", (int64_t)a->heap_resident);
}
