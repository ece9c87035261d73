/* One object's shortest path from a GC root, written as `heap --paths` names it (its root, then
 * each class and field on the way), for the commands that walk the heap with heap_graph.c
 * (heap_paths.c, class_loaders.c). Implemented in heap_paths.c. */
#ifndef JVMTICLI_HEAP_PATH_H
#define JVMTICLI_HEAP_PATH_H

#include <jni.h>
#include <jvmti.h>
#include <stdint.h>

#include "heap_graph.h"
#include "json.h"

/* The target's live platform threads, with their Thread.getId() and their tags in the graph. */
typedef struct {
    jthread *threads;
    jint count;
    jlong *ids;
    jlong *tags;
} thread_list;

void thread_list_read(JNIEnv *jni, const heap_graph *g, thread_list *threads);
void thread_list_free(JNIEnv *jni, thread_list *threads);

/* For the loaded classes: which are named as one of the wanted_count names wanted (NODE_TARGET_CLASS,
 * and asked[i] = 1 + the name's index; asked may be NULL when wanted_count is 0), which are primitive
 * arrays (NODE_PRIMITIVE_ARRAY_CLASS), and for each subclass of java.lang.ref.Reference the index of
 * its referent field (else -1). */
void heap_classes_mark(JNIEnv *jni, jclass *classes, jint count, char *const *wanted, int wanted_count, uint8_t *flags, uint8_t *asked,
                       jint *referent);

/* "length", "root", "stepsLeftOut" and "steps" of the path to a reached object: the objects
 * deeper than max_depth from it are counted, not named. */
void heap_path_write(json_writer *w, JNIEnv *jni, jclass *classes, const heap_graph *g, const thread_list *threads,
                     uint32_t object, uint32_t max_depth);

#endif
