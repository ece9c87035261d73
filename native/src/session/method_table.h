/* The methods an answer refers to, resolved on the agent thread when a session stops (never in
 * an event callback): each distinct jmethodID gets an index, frames refer to it, and the answer
 * carries one "methods" array of {class, name, signature}. Line numbers come from each method's
 * line number table, fetched once. */
#ifndef JVMTICLI_METHOD_TABLE_H
#define JVMTICLI_METHOD_TABLE_H

#include <jni.h>
#include <jvmti.h>
#include <stddef.h>
#include <stdint.h>

#include "json.h"

typedef struct {
    jmethodID method;
    jvmtiLineNumberEntry *lines; /* JVMTI-allocated, NULL when unknown */
    jint line_count;
    int lines_loaded;
} method_slot;

typedef struct {
    method_slot *methods;   /* index -> method */
    int32_t *slots;         /* hash: index + 1, 0 when free */
    size_t capacity;
    size_t count;
    size_t max_count;
    int with_origin;        /* set by the caller: each method also says whether it is the JDK's */
} method_table;

int method_table_init(method_table *t, size_t max_count);
void method_table_free(method_table *t);
/* The index of m, adding it if new; -1 when full. */
int32_t method_table_add(method_table *t, jmethodID m);
/* The source line of bci in method index i, or -1. */
int method_table_line(method_table *t, int32_t i, jlocation bci);
/* Writes [{"class":"Lp/C;","name":"m","signature":"()V"}, ...]; an unloaded method's fields are null.
 * With with_origin, each also has "jdk": true when its class was defined by the boot or the platform
 * class loader, false when by another loader, null when that cannot be told. */
void method_table_write(method_table *t, JNIEnv *jni, json_writer *w);
/* Writes one stack as [[method, bci, line], ...], innermost frame first. */
void method_table_write_frames(method_table *t, json_writer *w, const jvmtiFrameInfo *frames, int depth);

/* Writes the table as a JSON array and frees it; NULL (no table could be made) writes []. */
void method_table_finish(method_table *t, JNIEnv *jni, json_writer *w);

#endif
