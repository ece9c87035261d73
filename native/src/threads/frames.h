/* Stack frames resolved to class, method, source file and line, through a bounded cache of
 * what each method resolves to (a second dump costs a lookup per frame, not four JVMTI calls). */
#ifndef JVMTICLI_FRAMES_H
#define JVMTICLI_FRAMES_H

#include <stdint.h>

#include <jvmti.h>

#include "json.h"
#include "method_index.h"
#include "stack_tree.h"

/* The stack depth a request gets when it names none, and the most it may ask for. */
#define FRAMES_DEFAULT_DEPTH 8192
#define FRAMES_DEPTH_LIMIT 65536

/* Epoch milliseconds, the time a dump is stamped with. */
int64_t frames_wall_millis(void);

/* Writes frames as a JSON array of {"class","method","file","module","line","native"}; line is
 * -1 when unknown and -2 for a native method; module (class_module.h) only for a named module. */
void frames_write(json_writer *w, JNIEnv *jni, const jvmtiFrameInfo *frames, jint count);

/* The last stack added to a tree, bottom frame first, with the node each frame became. A stack
 * that shares its bottom frames with the one before (as the threads of a pool do) reuses those
 * nodes without resolving anything: most frames of a large dump cost a comparison. */
typedef struct {
    jvmtiFrameInfo *frames;
    int32_t *nodes;
    jint count;
    jint capacity;
} stack_memo;

/* Room for stacks of up to max_depth frames; returns 0, or -1 when out of memory. */
int stack_memo_init(stack_memo *memo, jint max_depth);
void stack_memo_free(stack_memo *memo);

/* Adds a stack (top frame first) to the answer's tree, from its
 * bottom frame up: each node is a method (its index in methods, added when new; -1 when it could
 * not be indexed) at a line (as above). Returns the top node, STACK_TREE_ROOT for a stack without
 * frames, or STACK_TREE_FULL when out of memory. The method table itself is written by
 * frames_write_methods. */
int32_t frames_add_stack(JNIEnv *jni, method_index *methods, stack_tree *tree, stack_memo *memo,
                         const jvmtiFrameInfo *frames, jint count);

/* A method as the frame table has it, without its end: {"class":..,"method":..,"file":..[,"module":..]
 * (file null when not known; module only for a named module); malloc'd, NULL when out of memory. */
char *frames_method_json(const char *class_name, const char *method_name, const char *file, const char *module,
                         size_t *len);

/* Writes one method of a frame table: its frames_method_json (null when that is NULL) and whether it
 * is native. */
void frames_write_method(json_writer *w, const char *json, size_t len, int native);

/* Writes the frame table from index first on: [{"class","method","file","module","native"}, ...] in
 * index order; null for a method that could not be resolved (out of memory). */
void frames_write_methods(json_writer *w, JNIEnv *jni, const method_index *methods, size_t first);

/* How many frames (top first, of the whole stack) must be looked at to find every monitor a
 * thread with these frames may own: up to the deepest frame that is synchronized or has a
 * monitorenter; 1 when only a native frame may have entered one through JNI (below the top, or at
 * the top while the thread runs native code: in_native); -1 when it can own none. */
jint frames_monitor_depth(JNIEnv *jni, const jvmtiFrameInfo *frames, jint count, int in_native);

/* Below the top frame of a complete stack, the one frame that can have entered a monitor: the
 * only one that is synchronized or has a monitorenter, with no native frame (JNI code may enter
 * monitors) among them. For a thread in Object.wait, the frame that entered the monitor it waits
 * on, which JVMTI and ThreadMXBean leave out of what it owns. -1 when none or several can, or the
 * top frame is not native (not in Object.wait any more). */
jint frames_sole_monitor_frame(JNIEnv *jni, const jvmtiFrameInfo *frames, jint count);

/* Whether a method is the one a StackTraceElement names (class and method name). */
int frames_method_is(JNIEnv *jni, jmethodID method, const char *class_name, const char *method_name);

/* Whether a frame is the one a StackTraceElement names: its class, method and line (-2 native;
 * a line either side does not know is not compared). */
int frames_frame_is(JNIEnv *jni, const jvmtiFrameInfo *frame, const char *class_name, const char *method_name, jint line);

/* "Ljava/util/Map$Entry;" becomes "java.util.Map$Entry" and a hidden class's
 * "Lp/C$$Lambda$1.0x0800;" "p.C$$Lambda$1/0x0800", as Class.getName() has them (malloc'd; NULL
 * when out of memory); array signatures keep their form with dots. */
char *java_class_name(const char *signature);

/* The source line of a bytecode location from a line number table, which JVMTI does not promise
 * to sort; -1 when none covers it. */
jint frames_line_at(const jvmtiLineNumberEntry *lines, jint count, jlocation location);

/* Forgets everything cached (agent shutdown). */
void frames_cache_clear(void);

#endif
