/* `memory --classloaders`: every class loader with the classes it defined, its parent and its
 * class, whether the collector could free it, and which ones look dead but are still reachable
 * (the redeploy leak), each of those with its path from a GC root.
 *
 * One FollowReferences walk at a safepoint (heap_graph.c) with classes as objects like any other:
 * a loader is reachable when the collector would keep it, and its path runs through what keeps
 * it (a static field of a class of a live loader, a thread, ...). A loader looks dead when none
 * of its classes has an instance that something other than its own classes' static fields holds,
 * and no thread has one of its methods on its stack: the platform threads' stacks from one
 * GetAllStackTraces, the virtual threads' (JDK 21+, found through the JDK's thread containers,
 * virtual_threads.h) one GetStackTrace each, up to maxVirtualThreads of them. When a stack was not
 * read, no loader is said to look dead. The loaders the JDK itself keeps (boot, platform, app) are
 * never said to.
 *
 * The metaspace each loader takes is the JVM's own figure: VM.classloader_stats and
 * VM.classloaders run through the attach listener just before the walk; the CLI matches their
 * rows to the loaders. */
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "answer.h"
#include "capabilities.h"
#include "diagnostic_command.h"
#include "events.h"
#include "frames.h"
#include "heap_graph.h"
#include "heap_path.h"
#include "jni_util.h"
#include "safepoint_totals.h"
#include "virtual_threads.h"

#define OBJECTS_MIN 10000
#define OBJECTS_MAX 200000000
#define REFERENCES_PER_OBJECT 4
#define PATHS_MAX 100
#define DEPTH_MAX 10000
#define FRAMES_PER_THREAD 1024
#define LOADERS_MAX 100000
#define VIRTUAL_THREADS_MAX 100000000
#define DCMD_MAX_ANSWER (16 * 1024 * 1024)
#define DCMD_TIMEOUT_SECONDS 30

typedef struct {
    uint32_t node;            /* the loader object's node in the graph; 0: the boot loader */
    jobject object;           /* a global reference to it while the loaders are read, a local one after the walk */
    uint32_t classes, hidden, arrays;
    uint64_t instances;       /* reachable instances of its classes, held from outside its own classes' statics */
    uint64_t own_static_instances;
    uint32_t threads;         /* threads, platform or virtual, with one of its methods on their stack */
    int builtin;
} loader_facts;

typedef struct {
    loader_facts *loaders; /* loaders[0] is the boot loader */
    uint32_t count, capacity;
    uint32_t first_node;   /* loaders[i] is node first_node + i - 1: they are tagged one after the other */
    uint32_t *of_class;    /* the loader index of each class node - 1 */
    int global_references; /* whether the loaders' objects are global references (before the walk) or local ones */
} loader_table;

static int loader_index(loader_table *t, heap_graph *g, jobject loader, jclass builtin_class, JNIEnv *jni, uint32_t *index) {
    if (loader == NULL) {
        *index = 0;
        return 0;
    }
    jclass klass = (*jni)->GetObjectClass(jni, loader);
    jlong klass_node = 0;
    if (klass == NULL || (*g->jvmti)->GetTag(g->jvmti, klass, &klass_node) != JVMTI_ERROR_NONE || klass_node < 0
            || (uint64_t)klass_node > g->class_count) {
        klass_node = 0; /* a class loaded since the list was read */
    }
    (*jni)->DeleteLocalRef(jni, klass);
    uint32_t node = heap_graph_add_object(g, loader, (uint32_t)klass_node, 0);
    if (node == 0 || node < t->first_node) {
        return -1;
    }
    if (node - t->first_node + 1 < t->count) {
        *index = node - t->first_node + 1;
        return 0;
    }
    if (t->count == LOADERS_MAX) {
        return -1;
    }
    if (t->count == t->capacity) {
        uint32_t wanted = t->capacity * 2;
        loader_facts *bigger = realloc(t->loaders, wanted * sizeof *bigger);
        if (bigger == NULL) {
            return -1;
        }
        t->loaders = bigger;
        t->capacity = wanted;
    }
    loader_facts *facts = &t->loaders[t->count];
    memset(facts, 0, sizeof *facts);
    facts->node = node;
    facts->object = (*jni)->NewGlobalRef(jni, loader);
    facts->builtin = builtin_class != NULL && (*jni)->IsInstanceOf(jni, loader, builtin_class);
    *index = t->count++;
    return 0;
}

/* A hidden class's signature has a '.' before its suffix ("Lcom/x/Y$$Lambda.0x0000000800c03000;"). */
static int hidden_class(const char *signature) {
    return signature[0] == 'L' && strchr(signature, '.') != NULL;
}

/* Adds the parents of loaders[index], up to the boot loader: a loader that defined no class
 * (the platform loader, often) is in the table too. */
static int add_parents(JNIEnv *jni, loader_table *t, heap_graph *g, uint32_t index, jclass builtin_class, jfieldID parent_field) {
    jobject loader = (*jni)->NewLocalRef(jni, t->loaders[index].object);
    int failed = 0;
    for (int depth = 0; loader != NULL && depth < 64 && !failed; depth++) {
        jobject parent = (*jni)->GetObjectField(jni, loader, parent_field);
        uint32_t ignored;
        failed = parent != NULL && loader_index(t, g, parent, builtin_class, jni, &ignored) != 0;
        (*jni)->DeleteLocalRef(jni, loader);
        loader = parent;
    }
    (*jni)->DeleteLocalRef(jni, loader);
    return failed ? -1 : 0;
}

/* Each class's loader, counted; the loaders tagged as nodes of the graph before the walk. */
static int read_loaders(JNIEnv *jni, heap_graph *g, jclass *classes, jint class_count, loader_table *t) {
    jclass builtin_class = (*jni)->FindClass(jni, "jdk/internal/loader/BuiltinClassLoader");
    if (builtin_class == NULL) {
        (*jni)->ExceptionClear(jni);
    }
    jclass loader_class = (*jni)->FindClass(jni, "java/lang/ClassLoader");
    jfieldID parent_field = loader_class == NULL ? NULL : (*jni)->GetFieldID(jni, loader_class, "parent", "Ljava/lang/ClassLoader;");
    jni_cleared_exception(jni);
    int failed = 0;
    t->first_node = g->node_count + 1;
    for (jint i = 0; i < class_count && !failed; i++) {
        jobject loader = NULL;
        char *signature = NULL;
        uint32_t index = 0;
        uint32_t known = t->count;
        if ((*the_agent.jvmti)->GetClassLoader(the_agent.jvmti, classes[i], &loader) != JVMTI_ERROR_NONE
                || (*the_agent.jvmti)->GetClassSignature(the_agent.jvmti, classes[i], &signature, NULL) != JVMTI_ERROR_NONE
                || loader_index(t, g, loader, builtin_class, jni, &index) != 0) {
            failed = 1;
        } else {
            if (index >= known && parent_field != NULL && add_parents(jni, t, g, index, builtin_class, parent_field) != 0) {
                failed = 1;
            }
            t->of_class[i] = index;
            loader_facts *facts = &t->loaders[index];
            if (signature[0] == '[') {
                facts->arrays++;
            } else if (hidden_class(signature)) {
                facts->hidden++;
            } else {
                facts->classes++;
            }
        }
        agent_deallocate(signature);
        (*jni)->DeleteLocalRef(jni, loader);
    }
    (*jni)->DeleteLocalRef(jni, builtin_class);
    (*jni)->DeleteLocalRef(jni, loader_class);
    return failed ? -1 : 0;
}

/* What JVMTI's walk leaves out: a live loader keeps the classes it defined; and a class not yet
 * linked, whose references the walk does not follow (HotSpot skips them), still keeps its loader.
 * 0, or -1 when past the bound of references or out of memory. */
static int add_defined_classes(heap_graph *g, const loader_table *t) {
    for (uint32_t k = 1; k <= g->class_count; k++) {
        uint32_t loader = t->of_class[k - 1];
        if (loader != 0 && (!heap_graph_add_reference(g, t->loaders[loader].node, k, HEAP_REFERENCE_DEFINED_CLASS, -1)
                            || !heap_graph_add_reference(g, k, t->loaders[loader].node, JVMTI_HEAP_REFERENCE_CLASS_LOADER, -1))) {
            return -1;
        }
    }
    return 0;
}

/* The global references go before the walk (they would be roots of the agent's own). */
static void drop_global_references(JNIEnv *jni, loader_table *t) {
    for (uint32_t i = 1; i < t->count; i++) {
        (*jni)->DeleteGlobalRef(jni, t->loaders[i].object);
        t->loaders[i].object = NULL;
    }
    t->global_references = 0;
}

/* The loaders again, by their tags, as local references. */
static jvmtiError find_loaders(JNIEnv *jni, const heap_graph *g, loader_table *t) {
    jlong *tags = malloc(((size_t)t->count + 1) * sizeof *tags);
    if (tags == NULL) {
        return JVMTI_ERROR_OUT_OF_MEMORY;
    }
    for (uint32_t i = 1; i < t->count; i++) {
        tags[i - 1] = t->loaders[i].node;
    }
    jint count = 0;
    jobject *objects = NULL;
    jlong *found = NULL;
    jvmtiError err = (*g->jvmti)->GetObjectsWithTags(g->jvmti, (jint)(t->count - 1), tags, &count, &objects, &found);
    free(tags);
    if (err != JVMTI_ERROR_NONE) {
        return err;
    }
    jni_reserve_locals(jni, count);
    for (jint i = 0; i < count; i++) {
        if (found[i] >= t->first_node && (uint64_t)found[i] - t->first_node + 1 < t->count) {
            t->loaders[found[i] - t->first_node + 1].object = objects[i];
        } else {
            (*jni)->DeleteLocalRef(jni, objects[i]);
        }
    }
    agent_deallocate(objects);
    agent_deallocate(found);
    return JVMTI_ERROR_NONE;
}

/* The loader of an object's class; UINT32_MAX when its class is not a loaded class of the list. */
static uint32_t loader_of_object(const heap_graph *g, const loader_table *t, uint32_t object) {
    uint32_t klass = g->nodes[object].klass;
    return klass == 0 || klass > g->class_count ? UINT32_MAX : t->of_class[klass - 1];
}

static void count_instances(const heap_graph *g, loader_table *t) {
    for (uint32_t i = g->class_count + 1; i <= g->node_count; i++) {
        const heap_node *node = &g->nodes[i];
        uint32_t loader = loader_of_object(g, t, i);
        if (node->root == 0 || loader == UINT32_MAX) {
            continue;
        }
        const heap_root *root = &g->roots[node->root - 1];
        if (root->klass != 0 && t->of_class[root->klass - 1] == loader) {
            t->loaders[loader].own_static_instances++;
        } else {
            t->loaders[loader].instances++;
        }
    }
}

/* Counts the thread whose stack this is for each loader with a method on it; seen: t->count bytes. */
static void count_stack(JNIEnv *jni, const heap_graph *g, loader_table *t, uint8_t *seen, const jvmtiFrameInfo *frames, jint count) {
    memset(seen, 0, t->count);
    for (jint f = 0; f < count; f++) {
        jclass declaring = NULL;
        jlong tag = 0;
        if ((*the_agent.jvmti)->GetMethodDeclaringClass(the_agent.jvmti, frames[f].method, &declaring) != JVMTI_ERROR_NONE) {
            continue;
        }
        if ((*g->jvmti)->GetTag(g->jvmti, declaring, &tag) == JVMTI_ERROR_NONE && tag > 0 && (uint64_t)tag <= g->class_count) {
            uint32_t loader = t->of_class[tag - 1];
            if (!seen[loader]) {
                seen[loader] = 1;
                t->loaders[loader].threads++;
            }
        }
        (*jni)->DeleteLocalRef(jni, declaring);
    }
}

/* Which loaders' methods are on the platform threads' stacks (one safepoint, GetAllStackTraces). */
static jvmtiError count_platform_threads(JNIEnv *jni, const heap_graph *g, loader_table *t, uint8_t *seen) {
    jvmtiStackInfo *stacks = NULL;
    jint thread_count = 0;
    jvmtiError err = (*the_agent.jvmti)->GetAllStackTraces(the_agent.jvmti, FRAMES_PER_THREAD, &stacks, &thread_count);
    if (err != JVMTI_ERROR_NONE) {
        return err;
    }
    jni_reserve_locals(jni, thread_count);
    for (jint i = 0; i < thread_count; i++) {
        if (!(*jni)->IsSameObject(jni, stacks[i].thread, the_agent.server_thread)) {
            count_stack(jni, g, t, seen, stacks[i].frame_buffer, stacks[i].frame_count);
        }
    }
    for (jint i = 0; i < thread_count; i++) {
        (*jni)->DeleteLocalRef(jni, stacks[i].thread);
    }
    agent_deallocate(stacks);
    return JVMTI_ERROR_NONE;
}

/* What was read of the virtual threads' stacks, and what it took. */
typedef struct {
    int present;             /* the JVM has virtual threads (JDK 21+) */
    const char *error;       /* why they could not all be listed or read; NULL */
    jlong found, read, ended;
    jlong past_bound;        /* found past maxVirtualThreads: not read */
    jlong untracked;         /* the JDK counts them but keeps no list (jdk.trackAllThreads=false): not read */
    int64_t elapsed;
    int counted;             /* the safepoint totals were read before and after */
    safepoint_totals before, after;
} virtual_stacks;

static int virtual_stacks_complete(const virtual_stacks *v) {
    return v->error == NULL && v->past_bound == 0 && v->untracked == 0;
}

typedef struct {
    JNIEnv *jni;
    const heap_graph *g;
    loader_table *t;
    uint8_t *seen;
    jvmtiFrameInfo *frames;  /* FRAMES_PER_THREAD */
    int64_t max;
    virtual_stacks *v;
} virtual_reader;

static int read_virtual_thread(void *context, jthread thread) {
    virtual_reader *r = context;
    virtual_stacks *v = r->v;
    v->found++;
    if (v->read + v->ended >= r->max) {
        v->past_bound++;
        return 0;
    }
    jint count = 0;
    jvmtiError err = (*the_agent.jvmti)->GetStackTrace(the_agent.jvmti, thread, 0, FRAMES_PER_THREAD, r->frames, &count);
    if (err == JVMTI_ERROR_THREAD_NOT_ALIVE) {
        v->ended++;
    } else if (err != JVMTI_ERROR_NONE) {
        v->error = "a virtual thread's stack could not be read (GetStackTrace failed)";
    } else {
        v->read++;
        count_stack(r->jni, r->g, r->t, r->seen, r->frames, count);
    }
    return 0;
}

static int virtual_read_failed(void *context) {
    const virtual_reader *r = context;
    return r->v->error != NULL;
}

/* Which loaders' methods are on the virtual threads' stacks: the first max of them found, one
 * GetStackTrace each (no safepoint: it stops that virtual thread alone). */
static void count_virtual_threads(JNIEnv *jni, const heap_graph *g, loader_table *t, uint8_t *seen, int64_t max, virtual_stacks *v) {
    const virtual_thread_layout *layout = NULL;
    if (virtual_threads_prepare(jni, &layout) != NULL) {
        return; /* before JDK 21 */
    }
    v->present = 1;
    if (!capabilities_has_virtual_threads(&the_agent.held)) {
        v->error = "the target JVM did not grant the agent can_support_virtual_threads";
        return;
    }
    jvmtiFrameInfo *frames = malloc(FRAMES_PER_THREAD * sizeof *frames);
    jobject root = virtual_threads_root(jni);
    if (frames == NULL || root == NULL) {
        v->error = frames == NULL ? "the agent could not allocate room for a stack" : "the JDK's thread containers could not be read";
        free(frames);
        (*jni)->DeleteLocalRef(jni, root);
        return;
    }
    v->counted = safepoint_totals_read(jni, &v->before) == 0;
    int64_t started = events_now_nanos();
    int tracked = 0;
    jlong in_root = virtual_threads_root_count(jni, root, &tracked);
    if (!tracked) {
        v->untracked = in_root;
    }
    virtual_reader reader = { jni, g, t, seen, frames, max, v };
    virtual_thread_visitor visitor = { read_virtual_thread, NULL, virtual_read_failed, &reader, 0, 0 };
    if (virtual_threads_walk(jni, root, &visitor) != 0 && v->error == NULL) {
        v->error = "the JDK's thread containers could not be read";
    } else if (v->untracked < 0 && v->error == NULL) {
        v->error = "how many virtual threads the JDK keeps no list of could not be told";
    }
    v->elapsed = events_now_nanos() - started;
    v->counted = v->counted && safepoint_totals_read(jni, &v->after) == 0;
    free(frames);
    (*jni)->DeleteLocalRef(jni, root);
}

static void virtual_stacks_write(json_writer *w, const virtual_stacks *v, int64_t max) {
    if (!v->present) {
        return;
    }
    json_begin_object_field(w, "virtualThreads");
    json_field_int(w, "found", v->found);
    json_field_int(w, "read", v->read);
    json_field_int(w, "ended", v->ended);
    json_field_int(w, "pastBound", v->past_bound);
    json_field_int(w, "untracked", v->untracked < 0 ? 0 : v->untracked);
    json_field_int(w, "maxVirtualThreads", max);
    json_field_int(w, "maxFrames", FRAMES_PER_THREAD);
    json_field_int(w, "elapsedNanos", v->elapsed);
    if (v->counted) {
        safepoint_totals_write(w, &v->before, &v->after);
    }
    if (v->error != NULL) {
        json_field_cstring(w, "error", v->error);
    }
    json_end_object(w);
}

static int looks_dead(const loader_facts *facts, const heap_graph *g) {
    return !facts->builtin && facts->node != 0 && facts->classes + facts->hidden > 0 && facts->instances == 0
        && facts->threads == 0 && g->nodes[facts->node].root != 0;
}

static void write_class_name(json_writer *w, const char *key, jclass klass) {
    char *signature = NULL;
    char *name = NULL;
    if (klass != NULL && (*the_agent.jvmti)->GetClassSignature(the_agent.jvmti, klass, &signature, NULL) == JVMTI_ERROR_NONE) {
        name = java_class_name(signature);
    }
    if (name == NULL) {
        json_field_null(w, key);
    } else {
        json_field_mutf8(w, key, name);
    }
    free(name);
    agent_deallocate(signature);
}

/* The loader's own facts: its class, the loader of that class, its name and parent (fields of java.lang.ClassLoader). */
static void write_loader_object(json_writer *w, JNIEnv *jni, jobject loader, heap_graph *g,
                                jfieldID name_field, jfieldID parent_field) {
    jclass klass = (*jni)->GetObjectClass(jni, loader);
    write_class_name(w, "loaderClass", klass);
    jobject defining = NULL;
    jlong tag = 0;
    if (klass != NULL && (*the_agent.jvmti)->GetClassLoader(the_agent.jvmti, klass, &defining) == JVMTI_ERROR_NONE) {
        if (defining == NULL) {
            json_field_int(w, "loaderClassDefinedBy", 0);
        } else if ((*g->jvmti)->GetTag(g->jvmti, defining, &tag) == JVMTI_ERROR_NONE) {
            json_field_int(w, "loaderClassDefinedBy", tag);
        }
    }
    char *name = name_field == NULL ? NULL : jni_string_field(jni, loader, name_field);
    if (name == NULL) {
        json_field_null(w, "name");
    } else {
        json_field_mutf8(w, "name", name);
    }
    free(name);
    jobject parent = parent_field == NULL ? NULL : (*jni)->GetObjectField(jni, loader, parent_field);
    tag = 0;
    if (parent == NULL || (*g->jvmti)->GetTag(g->jvmti, parent, &tag) == JVMTI_ERROR_NONE) {
        json_field_int(w, "parent", tag); /* 0: the boot loader; a node not in the table: a loader that defined no class */
    }
    (*jni)->DeleteLocalRef(jni, parent);
    (*jni)->DeleteLocalRef(jni, defining);
    (*jni)->DeleteLocalRef(jni, klass);
}

typedef struct {
    int64_t max_paths, max_depth, max_virtual_threads;
    char *stats, *tree;           /* the diagnostic commands' texts, read before the walk */
    char stats_error[512], tree_error[512];
} answer_inputs;

static void write_answer(command_ctx *ctx, jclass *classes, jint class_count, heap_graph *g, loader_table *t, const answer_inputs *in,
                         const safepoint_totals *before, const safepoint_totals *after, int counted, int64_t elapsed,
                         jvmtiError threads_error, const virtual_stacks *virtual) {
    JNIEnv *jni = ctx->jni;
    jclass loader_class = (*jni)->FindClass(jni, "java/lang/ClassLoader");
    jfieldID name_field = loader_class == NULL ? NULL : (*jni)->GetFieldID(jni, loader_class, "name", "Ljava/lang/String;");
    jni_cleared_exception(jni);
    jfieldID parent_field = loader_class == NULL ? NULL : (*jni)->GetFieldID(jni, loader_class, "parent", "Ljava/lang/ClassLoader;");
    jni_cleared_exception(jni);
    thread_list threads;
    thread_list_read(jni, g, &threads);

    command_result(ctx);
    json_writer *w = ctx->out;
    json_begin_object(w);
    json_field_int(w, "elapsedNanos", elapsed);
    if (counted) {
        safepoint_totals_write(w, before, after);
    }
    json_field_int(w, "objects", (int64_t)(g->node_count - g->class_count));
    json_field_int(w, "roots", g->root_count);
    json_field_int(w, "maxObjects", g->max_nodes);
    json_field_int(w, "agentBytes", (int64_t)g->agent_bytes);
    json_field_int(w, "loadedClasses", class_count);
    if (threads_error != JVMTI_ERROR_NONE) {
        json_field_cstring(w, "threadsError", threads_error == JVMTI_ERROR_OUT_OF_MEMORY
                           ? "the threads' stacks could not be read (the agent could not allocate its table of loaders seen)"
                           : "the platform threads' stacks could not be read (GetAllStackTraces failed)");
    }
    virtual_stacks_write(w, virtual, in->max_virtual_threads);
    int stacks_read = threads_error == JVMTI_ERROR_NONE && virtual_stacks_complete(virtual);
    json_begin_array_field(w, "loaders");
    for (uint32_t i = 0; i < t->count; i++) {
        const loader_facts *facts = &t->loaders[i];
        json_begin_object(w);
        json_field_int(w, "id", facts->node);
        if (facts->node == 0) {
            json_field_cstring(w, "loaderClass", "<bootstrap>");
        } else if (facts->object != NULL) {
            write_loader_object(w, jni, facts->object, g, name_field, parent_field);
        }
        json_field_bool(w, "builtin", facts->node == 0 || facts->builtin);
        json_field_int(w, "classes", facts->classes);
        json_field_int(w, "hiddenClasses", facts->hidden);
        json_field_int(w, "arrayClasses", facts->arrays);
        json_field_int(w, "instances", (int64_t)facts->instances);
        json_field_int(w, "instancesHeldByOwnStatics", (int64_t)facts->own_static_instances);
        json_field_int(w, "threads", facts->threads);
        json_field_bool(w, "reachable", facts->node == 0 || g->nodes[facts->node].root != 0);
        if (looks_dead(facts, g) && !stacks_read) {
            json_field_null(w, "looksDead"); /* unknown: its code may be on a stack not read */
        } else {
            json_field_bool(w, "looksDead", looks_dead(facts, g));
        }
        json_end_object(w);
    }
    json_end_array(w);
    json_begin_array_field(w, "deadPaths");
    int64_t written = 0;
    for (uint32_t i = 0; i < t->count && written < in->max_paths && stacks_read; i++) {
        if (looks_dead(&t->loaders[i], g)) {
            json_begin_object(w);
            json_field_int(w, "loader", t->loaders[i].node);
            heap_path_write(w, jni, classes, g, &threads, t->loaders[i].node, (uint32_t)in->max_depth);
            json_end_object(w);
            written++;
        }
    }
    json_end_array(w);
    if (in->stats != NULL) {
        json_field_mutf8(w, "classLoaderStats", in->stats);
    } else {
        json_field_cstring(w, "classLoaderStatsError", in->stats_error);
    }
    if (in->tree != NULL) {
        json_field_mutf8(w, "classLoaderTree", in->tree);
    } else {
        json_field_cstring(w, "classLoaderTreeError", in->tree_error);
    }
    json_end_object(w);
    thread_list_free(jni, &threads);
    (*jni)->DeleteLocalRef(jni, loader_class);
}

void cmd_class_loaders(command_ctx *ctx) {
    answer_inputs in;
    memset(&in, 0, sizeof in);
    in.max_paths = request_int(ctx->req, "maxPaths", 5);
    in.max_depth = request_int(ctx->req, "maxDepth", 30);
    int64_t max_objects = request_int(ctx->req, "maxObjects", 1000000);
    in.max_virtual_threads = request_int(ctx->req, "maxVirtualThreads", 100000);
    if (in.max_paths < 0 || in.max_paths > PATHS_MAX || in.max_depth < 1 || in.max_depth > DEPTH_MAX
            || max_objects < OBJECTS_MIN || max_objects > OBJECTS_MAX || in.max_virtual_threads < 0 || in.max_virtual_threads > VIRTUAL_THREADS_MAX) {
        command_fail(ctx, "bad_request", "classloaders takes maxPaths from 0 to 100, maxDepth from 1 to 10000, maxObjects from 10000 to 200000000,"
                     " maxVirtualThreads from 0 to 100000000");
        return;
    }
    JNIEnv *jni = ctx->jni;
    jint class_count = 0;
    jclass *classes = NULL;
    jvmtiError err = (*the_agent.jvmti)->GetLoadedClasses(the_agent.jvmti, &class_count, &classes);
    if (err != JVMTI_ERROR_NONE) {
        command_fail_jvmti(ctx, "GetLoadedClasses", err);
        return;
    }
    jni_reserve_locals(jni, class_count);
    size_t length = 0;
    in.stats = diagnostic_command_run("VM.classloader_stats", DCMD_MAX_ANSWER, DCMD_TIMEOUT_SECONDS, in.stats_error, sizeof in.stats_error, &length);
    in.tree = diagnostic_command_run("VM.classloaders verbose fold=false", DCMD_MAX_ANSWER, DCMD_TIMEOUT_SECONDS, in.tree_error,
                                     sizeof in.tree_error, &length);
    uint8_t *flags = calloc((size_t)class_count + 1, 1);
    jint *referent = calloc((size_t)class_count + 1, sizeof *referent);
    loader_table t = { .capacity = 64, .global_references = 1 };
    t.loaders = calloc(t.capacity, sizeof *t.loaders);
    t.of_class = calloc((size_t)class_count + 1, sizeof *t.of_class);
    t.count = 1; /* the boot loader */
    heap_graph g;
    memset(&g, 0, sizeof g);
    if (flags == NULL || referent == NULL || t.loaders == NULL || t.of_class == NULL) {
        command_fail(ctx, "out_of_memory", "the agent could not allocate its table of classes");
    } else if (heap_classes_mark(jni, classes, class_count, NULL, 0, flags, NULL, referent),
               (err = heap_graph_begin(&g, the_agent.vm, jni, classes, class_count, flags, referent, 1, (uint32_t)max_objects,
                                       (uint64_t)max_objects * REFERENCES_PER_OBJECT)) != JVMTI_ERROR_NONE) {
        command_fail_jvmti(ctx, "SetTag", err);
    } else if (!g.over_budget && read_loaders(jni, &g, classes, class_count, &t) != 0) {
        command_fail(ctx, "out_of_memory", "the agent could not read the classes' loaders");
    } else {
        drop_global_references(jni, &t);
        safepoint_totals before, after;
        int counted = safepoint_totals_read_settled(jni, &before) == 0;
        int64_t started = events_now_nanos();
        err = heap_graph_walk(&g);
        int64_t elapsed = events_now_nanos() - started;
        counted = counted && safepoint_totals_read(jni, &after) == 0;
        if (err != JVMTI_ERROR_NONE) {
            command_fail_jvmti(ctx, "FollowReferences", err);
        } else if (g.over_budget) {
            char message[512];
            snprintf(message, sizeof message,
                     "the heap holds more than %lld objects or %lld references reachable from its roots (--max-objects %lld, %d references an object):"
                     " the agent stopped its walk there, after %.1f ms, rather than take more memory in the target",
                     (long long)max_objects, (long long)max_objects * REFERENCES_PER_OBJECT, (long long)max_objects, REFERENCES_PER_OBJECT,
                     (double)elapsed / 1e6);
            command_fail(ctx, "heap_too_large", message);
        } else if (g.out_of_memory || add_defined_classes(&g, &t) != 0 || heap_graph_search(&g) != 0) {
            command_fail(ctx, g.over_budget ? "heap_too_large" : "out_of_memory", g.over_budget
                         ? "the heap's references and its classes' loaders pass the bound (--max-objects, 4 references an object)"
                         : "the agent could not allocate the heap's graph");
        } else if ((err = find_loaders(jni, &g, &t)) != JVMTI_ERROR_NONE) {
            command_fail_jvmti(ctx, "GetObjectsWithTags", err);
        } else {
            count_instances(&g, &t);
            virtual_stacks virtual;
            memset(&virtual, 0, sizeof virtual);
            uint8_t *seen = calloc(t.count, 1);
            jvmtiError threads_error = seen == NULL ? JVMTI_ERROR_OUT_OF_MEMORY : count_platform_threads(jni, &g, &t, seen);
            if (seen != NULL) {
                count_virtual_threads(jni, &g, &t, seen, in.max_virtual_threads, &virtual);
            }
            free(seen);
            write_answer(ctx, classes, class_count, &g, &t, &in, &before, &after, counted, elapsed, threads_error, &virtual);
        }
    }
    heap_graph_end(&g);
    free(in.stats);
    free(in.tree);
    free(flags);
    free(referent);
    for (uint32_t i = 1; i < t.count && t.loaders != NULL; i++) {
        if (t.global_references) {
            (*jni)->DeleteGlobalRef(jni, t.loaders[i].object);
        } else {
            (*jni)->DeleteLocalRef(jni, t.loaders[i].object);
        }
    }
    free(t.loaders);
    free(t.of_class);
    for (jint i = 0; i < class_count; i++) {
        (*jni)->DeleteLocalRef(jni, classes[i]);
    }
    agent_deallocate(classes);
}
