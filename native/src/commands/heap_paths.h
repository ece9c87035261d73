/* The paths from GC roots to objects asked about (heap_paths.c): the instances of a class
 * (`heap.paths`), or the sampled objects `alloc --live` found surviving (its stop, asked for paths). */
#ifndef JVMTICLI_HEAP_PATHS_H
#define JVMTICLI_HEAP_PATHS_H

#include <jni.h>
#include <stdint.h>

#include "json.h"
#include "request.h"

typedef struct {
    int64_t max_paths;   /* the paths answered, most instances (of samples: bytes) first */
    int64_t max_depth;   /* the objects named on a path, from the instance */
    int64_t max_objects; /* the walk's bound: objects reachable, and 4 references an object */
} heap_paths_limits;

/* A sampled object: its weak ref, its allocation site (as the caller numbers them) and the bytes it stands for. */
typedef struct {
    jweak ref;
    uint32_t site;
    uint64_t weight;
} heap_paths_sample;

/* The request's maxPaths, maxDepth and maxObjects (or their defaults): 0, or -1 when one is out of bounds. */
int heap_paths_limits_read(const request *req, heap_paths_limits *limits);

/* On the agent thread, with nothing of the target's stopped: one walk from the roots, and writes one
 * JSON object, the paths to the samples' objects grouped by site and path (each with write_site's
 * keys), or {"error":{"code":..,"message":..}} when the walk failed or passed its bound; without
 * samples, no walk: {"objects":0,"paths":[]}. The weak
 * refs stay the caller's: each is made a local reference only while its object is tagged. */
void heap_paths_write_samples(json_writer *w, JNIEnv *jni, const heap_paths_sample *samples, uint32_t count, const heap_paths_limits *limits,
                              void (*write_site)(void *arg, json_writer *w, uint32_t site), void *site_arg);

#endif
