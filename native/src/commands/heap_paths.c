/* `heap --paths CLASS`: for the instances of a class (of up to 16 classes, each answered apart, from
 * one walk: `dump --heap`'s grown classes), the shortest path from a GC root to each (heap_graph.c:
 * one FollowReferences walk at a safepoint, then a breadth-first search in the agent's memory),
 * grouped by root and by the classes and fields on the way, with what each root
 * keeps: the bytes of the objects whose shortest path starts at it. The walk's pause is the
 * safepoints the JVM counted meanwhile, as `heap` measures its histogram's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "answer.h"
#include "events.h"
#include "frames.h"
#include "heap_graph.h"
#include "heap_path.h"
#include "heap_paths.h"
#include "jni_util.h"
#include "safepoint_totals.h"
#include "thread_facts.h"

#define PATHS_MAX 1000
#define CLASSES_MAX 16 /* asked about in one walk: fits heap_classes_mark's uint8_t */
#define DEPTH_MAX 10000
#define OBJECTS_MIN 10000
#define OBJECTS_MAX 200000000
#define REFERENCES_PER_OBJECT 4 /* the walk's references are bounded at this many per object asked for */
#define INTERFACES_MAX 256
#define HIERARCHY_MAX 256

typedef struct {
    uint64_t hash;
    uint32_t instance; /* one of its instances: its path is the group's */
    uint32_t count;
    uint32_t length;   /* objects on the path, the root's and the instance included */
    uint32_t site;     /* of samples: the allocation site they share; else 0 */
    uint64_t weight;   /* of samples: the bytes they stand for */
} path_group;

typedef struct {
    const heap_graph *g;
    path_group *groups;
    uint32_t group_count;
    uint32_t *slots; /* 1 + group index; 0 free */
    uint64_t slot_mask;
} path_table;

static int same_root(const heap_root *a, const heap_root *b) {
    if (a->kind != b->kind) {
        return 0;
    }
    switch (a->kind) {
    case JVMTI_HEAP_REFERENCE_STACK_LOCAL:
        return a->thread_id == b->thread_id && a->method == b->method && a->depth == b->depth && a->slot == b->slot;
    case JVMTI_HEAP_REFERENCE_JNI_LOCAL:
        return a->thread_id == b->thread_id && a->method == b->method && a->depth == b->depth;
    case JVMTI_HEAP_REFERENCE_THREAD:
        return a->object == b->object;
    case JVMTI_HEAP_REFERENCE_JNI_GLOBAL:
    case JVMTI_HEAP_REFERENCE_MONITOR:
    case JVMTI_HEAP_REFERENCE_OTHER:
    case JVMTI_HEAP_REFERENCE_SYSTEM_CLASS:
        return 1;
    default: /* a class's reference */
        return a->klass == b->klass && a->index == b->index;
    }
}

static uint64_t mix(uint64_t h, uint64_t v) {
    h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    return h * 0xff51afd7ed558ccdULL;
}

static uint64_t root_hash(const heap_root *r) {
    uint64_t h = mix(0, (uint64_t)r->kind);
    if (r->kind == JVMTI_HEAP_REFERENCE_STACK_LOCAL || r->kind == JVMTI_HEAP_REFERENCE_JNI_LOCAL) {
        h = mix(mix(mix(h, (uint64_t)r->thread_id), (uint64_t)(uintptr_t)r->method), (uint64_t)r->depth);
    } else if (r->kind == JVMTI_HEAP_REFERENCE_THREAD) {
        h = mix(h, r->object);
    } else {
        h = mix(mix(h, r->klass), (uint64_t)(int64_t)r->index);
    }
    return h;
}

/* A step's index counts when it names a field; array elements are one step whatever their index. */
static jint step_key(const heap_node *n) {
    return n->step_kind == JVMTI_HEAP_REFERENCE_FIELD ? n->step_index : -1;
}

static uint64_t path_hash(const heap_graph *g, uint32_t object, uint32_t *length) {
    uint64_t h = 0;
    uint32_t n = 0;
    for (;; object = g->nodes[object].parent) {
        const heap_node *node = &g->nodes[object];
        h = mix(mix(mix(h, node->klass), node->step_kind), (uint64_t)(int64_t)step_key(node));
        n++;
        if (node->parent == 0) {
            *length = n;
            return mix(h, root_hash(&g->roots[node->root - 1]));
        }
    }
}

static int same_path(const heap_graph *g, uint32_t a, uint32_t b) {
    for (;; a = g->nodes[a].parent, b = g->nodes[b].parent) {
        const heap_node *x = &g->nodes[a], *y = &g->nodes[b];
        if (x->klass != y->klass || x->step_kind != y->step_kind || step_key(x) != step_key(y)
                || (x->parent == 0) != (y->parent == 0)) {
            return 0;
        }
        if (x->parent == 0) {
            return same_root(&g->roots[x->root - 1], &g->roots[y->root - 1]);
        }
    }
}

static int group_instance(path_table *t, uint32_t object, uint32_t site, uint64_t weight) {
    uint32_t length;
    uint64_t h = mix(path_hash(t->g, object, &length), site);
    for (uint64_t at = h & t->slot_mask;; at = (at + 1) & t->slot_mask) {
        uint32_t slot = t->slots[at];
        if (slot == 0) {
            path_group *group = &t->groups[t->group_count++];
            group->hash = h;
            group->instance = object;
            group->count = 1;
            group->length = length;
            group->site = site;
            group->weight = weight;
            t->slots[at] = t->group_count;
            return 0;
        }
        path_group *group = &t->groups[slot - 1];
        if (group->hash == h && group->length == length && group->site == site && same_path(t->g, group->instance, object)) {
            group->count++;
            group->weight += weight;
            return 0;
        }
    }
}

static int by_count(const void *a, const void *b) {
    const path_group *x = a, *y = b;
    if (x->weight != y->weight) {
        return x->weight < y->weight ? 1 : -1; /* samples: the most bytes first; instances weigh 0 */
    }
    return x->count != y->count ? (x->count < y->count ? 1 : -1) : (x->length > y->length) - (x->length < y->length);
}

/* "Lcom/shop/Cache;" as Class.getName() has it, for class node k (NULL: unknown). */
static char *class_name(jclass *classes, const heap_graph *g, uint32_t k) {
    if (k == 0 || k > g->class_count) {
        return NULL;
    }
    char *signature = NULL;
    if ((*the_agent.jvmti)->GetClassSignature(the_agent.jvmti, classes[k - 1], &signature, NULL) != JVMTI_ERROR_NONE) {
        return NULL;
    }
    char *name = java_class_name(signature);
    agent_deallocate(signature);
    return name;
}

static void write_class(json_writer *w, const char *key, jclass *classes, const heap_graph *g, uint32_t k) {
    char *name = class_name(classes, g, k);
    if (name == NULL) {
        json_field_null(w, key);
    } else {
        json_field_mutf8(w, key, name);
    }
    free(name);
}

typedef struct {
    jclass list[INTERFACES_MAX];
    jint count;
    int complete;
} interface_set;

/* Adds klass's interfaces and theirs, each once. */
static void add_interfaces(JNIEnv *jni, jclass klass, interface_set *set) {
    jint count = 0;
    jclass *direct = NULL;
    if ((*the_agent.jvmti)->GetImplementedInterfaces(the_agent.jvmti, klass, &count, &direct) != JVMTI_ERROR_NONE) {
        set->complete = 0;
        return;
    }
    for (jint i = 0; i < count; i++) {
        int known = 0;
        for (jint j = 0; j < set->count && !known; j++) {
            known = (*jni)->IsSameObject(jni, set->list[j], direct[i]);
        }
        if (known) {
            continue;
        }
        if (set->count == INTERFACES_MAX) {
            set->complete = 0;
            break;
        }
        set->list[set->count++] = direct[i];
        add_interfaces(jni, direct[i], set);
    }
    agent_deallocate(direct);
}

static jint field_count(jclass klass) {
    jint count = 0;
    jfieldID *fields = NULL;
    if ((*the_agent.jvmti)->GetClassFields(the_agent.jvmti, klass, &count, &fields) != JVMTI_ERROR_NONE) {
        return -1;
    }
    agent_deallocate(fields);
    return count;
}

/* How FollowReferences numbers the fields of a class, as the JVMTI specification says
 * (jvmtiHeapReferenceInfoField): first the fields of every interface the class implements, then
 * those of java.lang.Object, of each superclass down to the class's own, each class's in
 * GetClassFields order; an interface's own fields follow those of its superinterfaces. Its classes
 * are local references of the caller's frame. */
typedef struct {
    interface_set interfaces;
    jclass levels[HIERARCHY_MAX]; /* the class, its superclass, ... java.lang.Object */
    int level_count;
    jint first;                   /* the index of the top level's first field */
} field_numbering;

static int numbering_read(JNIEnv *jni, jclass klass, field_numbering *n) {
    n->interfaces.count = 0;
    n->interfaces.complete = 1;
    n->level_count = 0;
    jboolean is_interface = JNI_FALSE;
    if ((*the_agent.jvmti)->IsInterface(the_agent.jvmti, klass, &is_interface) != JVMTI_ERROR_NONE) {
        return 0;
    }
    if (is_interface) {
        n->levels[n->level_count++] = klass;
        add_interfaces(jni, klass, &n->interfaces);
    } else {
        for (jclass k = klass; k != NULL; k = (*jni)->GetSuperclass(jni, k)) {
            if (n->level_count == HIERARCHY_MAX) {
                return 0;
            }
            n->levels[n->level_count++] = k;
            add_interfaces(jni, k, &n->interfaces);
        }
    }
    n->first = 0;
    for (jint i = 0; i < n->interfaces.count; i++) {
        jint count = field_count(n->interfaces.list[i]);
        if (count < 0) {
            return 0;
        }
        n->first += count;
    }
    return n->interfaces.complete;
}

/* The name of field `index` of FollowReferences in klass: malloc'd modified UTF-8; NULL when it cannot tell. */
static char *field_name(JNIEnv *jni, jclass klass, jint index) {
    if ((*jni)->PushLocalFrame(jni, INTERFACES_MAX + HIERARCHY_MAX + 16) != 0) {
        (*jni)->ExceptionClear(jni);
        return NULL;
    }
    field_numbering n;
    char *name = NULL;
    jint first = numbering_read(jni, klass, &n) ? n.first : -1;
    for (int level = n.level_count - 1; first >= 0 && level >= 0 && name == NULL; level--) {
        jint count = 0;
        jfieldID *fields = NULL;
        if ((*the_agent.jvmti)->GetClassFields(the_agent.jvmti, n.levels[level], &count, &fields) != JVMTI_ERROR_NONE) {
            break;
        }
        if (index >= first && index < first + count) {
            char *found = NULL;
            if ((*the_agent.jvmti)->GetFieldName(the_agent.jvmti, n.levels[level], fields[index - first], &found, NULL, NULL)
                    == JVMTI_ERROR_NONE) {
                name = strdup(found);
                agent_deallocate(found);
            }
        }
        first += count;
        agent_deallocate(fields);
    }
    (*jni)->PopLocalFrame(jni, NULL);
    return name;
}

/* The FollowReferences index in klass of the field `name` that `declaring` (klass or a superclass) declares; -1 when none. */
static jint field_index(JNIEnv *jni, jclass klass, jclass declaring, const char *name) {
    if ((*jni)->PushLocalFrame(jni, INTERFACES_MAX + HIERARCHY_MAX + 16) != 0) {
        (*jni)->ExceptionClear(jni);
        return -1;
    }
    field_numbering n;
    jint index = -1;
    jint first = numbering_read(jni, klass, &n) ? n.first : -1;
    for (int level = n.level_count - 1; first >= 0 && level >= 0 && index < 0; level--) {
        jint count = 0;
        jfieldID *fields = NULL;
        if ((*the_agent.jvmti)->GetClassFields(the_agent.jvmti, n.levels[level], &count, &fields) != JVMTI_ERROR_NONE) {
            break;
        }
        for (jint i = 0; i < count && index < 0 && (*jni)->IsSameObject(jni, n.levels[level], declaring); i++) {
            char *found = NULL;
            if ((*the_agent.jvmti)->GetFieldName(the_agent.jvmti, n.levels[level], fields[i], &found, NULL, NULL) == JVMTI_ERROR_NONE) {
                index = strcmp(found, name) == 0 ? first + i : -1;
                agent_deallocate(found);
            }
        }
        first += count;
        agent_deallocate(fields);
    }
    (*jni)->PopLocalFrame(jni, NULL);
    return index;
}

static void write_field(json_writer *w, JNIEnv *jni, jclass *classes, const heap_graph *g, uint32_t klass, jint index) {
    char *name = klass == 0 || klass > g->class_count ? NULL : field_name(jni, classes[klass - 1], index);
    if (name == NULL) {
        json_field_null(w, "field");
    } else {
        json_field_mutf8(w, "field", name);
    }
    free(name);
    json_field_int(w, "fieldIndex", index);
}

static void write_thread(json_writer *w, JNIEnv *jni, const thread_list *threads, jlong id, uint32_t object) {
    for (jint i = 0; i < threads->count; i++) {
        if (object != 0 ? threads->tags[i] == (jlong)object : threads->ids[i] == id) {
            jvmtiThreadInfo info;
            if ((*the_agent.jvmti)->GetThreadInfo(the_agent.jvmti, threads->threads[i], &info) == JVMTI_ERROR_NONE) {
                json_field_mutf8(w, "thread", info.name == NULL ? "" : info.name);
                json_field_int(w, "threadId", threads->ids[i]);
                agent_deallocate(info.name);
                (*jni)->DeleteLocalRef(jni, info.thread_group);
                (*jni)->DeleteLocalRef(jni, info.context_class_loader);
                return;
            }
        }
    }
    json_field_null(w, "thread");
    json_field_int(w, "threadId", id);
}

static void write_frame(json_writer *w, JNIEnv *jni, const heap_root *root) {
    jclass declaring = NULL;
    char *method = NULL, *signature = NULL;
    if ((*the_agent.jvmti)->GetMethodDeclaringClass(the_agent.jvmti, root->method, &declaring) != JVMTI_ERROR_NONE
            || (*the_agent.jvmti)->GetMethodName(the_agent.jvmti, root->method, &method, NULL, NULL) != JVMTI_ERROR_NONE
            || (*the_agent.jvmti)->GetClassSignature(the_agent.jvmti, declaring, &signature, NULL) != JVMTI_ERROR_NONE) {
        json_field_null(w, "frame");
    } else {
        json_begin_object_field(w, "frame");
        char *name = java_class_name(signature);
        json_field_mutf8(w, "class", name == NULL ? "" : name);
        free(name);
        json_field_mutf8(w, "method", method);
        jint line = -1;
        jint line_count = 0;
        jvmtiLineNumberEntry *lines = NULL;
        if (root->kind == JVMTI_HEAP_REFERENCE_STACK_LOCAL && the_agent.held.can_get_line_numbers
                && (*the_agent.jvmti)->GetLineNumberTable(the_agent.jvmti, root->method, &line_count, &lines) == JVMTI_ERROR_NONE) {
            line = frames_line_at(lines, line_count, root->location);
            agent_deallocate(lines);
        }
        json_field_int(w, "line", line);
        json_field_int(w, "depth", root->depth);
        if (root->kind == JVMTI_HEAP_REFERENCE_STACK_LOCAL) {
            json_field_int(w, "slot", root->slot);
        }
        json_end_object(w);
    }
    agent_deallocate(method);
    agent_deallocate(signature);
    (*jni)->DeleteLocalRef(jni, declaring);
}

static const char *reference_kind_name(jvmtiHeapReferenceKind kind) {
    switch ((int)kind) {
    case JVMTI_HEAP_REFERENCE_JNI_GLOBAL: return "jniGlobal";
    case JVMTI_HEAP_REFERENCE_SYSTEM_CLASS: return "systemClass";
    case JVMTI_HEAP_REFERENCE_MONITOR: return "monitor";
    case JVMTI_HEAP_REFERENCE_STACK_LOCAL: return "stackLocal";
    case JVMTI_HEAP_REFERENCE_JNI_LOCAL: return "jniLocal";
    case JVMTI_HEAP_REFERENCE_THREAD: return "thread";
    case JVMTI_HEAP_REFERENCE_STATIC_FIELD: return "staticField";
    case JVMTI_HEAP_REFERENCE_CONSTANT_POOL: return "constantPool";
    case JVMTI_HEAP_REFERENCE_CLASS_LOADER: return "classLoader";
    case JVMTI_HEAP_REFERENCE_SIGNERS: return "signers";
    case JVMTI_HEAP_REFERENCE_CLASS: return "class";
    case JVMTI_HEAP_REFERENCE_SUPERCLASS: return "superclass";
    case JVMTI_HEAP_REFERENCE_INTERFACE: return "interface";
    case HEAP_REFERENCE_DEFINED_CLASS: return "definedClass";
    case JVMTI_HEAP_REFERENCE_PROTECTION_DOMAIN: return "protectionDomain";
    default: return "other";
    }
}

static void write_root(json_writer *w, JNIEnv *jni, jclass *classes, const heap_graph *g, const thread_list *threads, const heap_root *root) {
    json_begin_object_field(w, "root");
    json_field_cstring(w, "kind", reference_kind_name(root->kind));
    switch (root->kind) {
    case JVMTI_HEAP_REFERENCE_STACK_LOCAL:
    case JVMTI_HEAP_REFERENCE_JNI_LOCAL:
        write_thread(w, jni, threads, root->thread_id, 0);
        write_frame(w, jni, root);
        break;
    case JVMTI_HEAP_REFERENCE_THREAD:
        write_thread(w, jni, threads, -1, root->object);
        break;
    case JVMTI_HEAP_REFERENCE_STATIC_FIELD:
        write_class(w, "class", classes, g, root->klass);
        write_field(w, jni, classes, g, root->klass, root->index);
        break;
    case JVMTI_HEAP_REFERENCE_CONSTANT_POOL:
        write_class(w, "class", classes, g, root->klass);
        json_field_int(w, "constantPoolIndex", root->index);
        break;
    case JVMTI_HEAP_REFERENCE_CLASS_LOADER:
    case JVMTI_HEAP_REFERENCE_SIGNERS:
    case JVMTI_HEAP_REFERENCE_PROTECTION_DOMAIN:
        write_class(w, "class", classes, g, root->klass);
        break;
    default:
        break;
    }
    /* every root of this description together: one static field, one local of one frame, ... */
    uint64_t bytes = 0;
    uint64_t count = 0;
    for (uint32_t i = 0; i < g->root_count; i++) {
        if (same_root(&g->roots[i], root)) {
            bytes += g->roots[i].bytes;
            count++;
        }
    }
    json_field_int(w, "keepsBytes", (int64_t)bytes);
    json_field_int(w, "references", (int64_t)count);
    json_end_object(w);
}

/* The objects of a path, the root's first; the ones deeper than max_depth from the instance left out. */
static void write_steps(json_writer *w, JNIEnv *jni, jclass *classes, const heap_graph *g, uint32_t instance, uint32_t length,
                        uint32_t max_depth) {
    uint32_t shown = length < max_depth + 1 ? length : max_depth + 1;
    uint32_t *chain = malloc(shown * sizeof *chain);
    if (chain == NULL) {
        json_field_null(w, "steps");
        return;
    }
    uint32_t object = instance;
    for (uint32_t i = shown; i > 0; i--, object = g->nodes[object].parent) {
        chain[i - 1] = object;
    }
    json_field_int(w, "stepsLeftOut", length - shown);
    json_begin_array_field(w, "steps");
    for (uint32_t i = 0; i < shown; i++) {
        const heap_node *node = &g->nodes[chain[i]];
        json_begin_object(w);
        write_class(w, "class", classes, g, node->klass);
        if (chain[i] <= g->class_count) { /* a java.lang.Class: which class it is */
            write_class(w, "classObjectOf", classes, g, chain[i]);
        }
        if (node->parent != 0 && node->step_kind == JVMTI_HEAP_REFERENCE_FIELD) {
            write_field(w, jni, classes, g, g->nodes[node->parent].klass, node->step_index);
        } else if (node->parent != 0 && node->step_kind == JVMTI_HEAP_REFERENCE_ARRAY_ELEMENT) {
            json_field_int(w, "arrayIndex", node->step_index);
        } else if (node->parent != 0) {
            json_field_cstring(w, "via", reference_kind_name((jvmtiHeapReferenceKind)node->step_kind));
        }
        json_end_object(w);
    }
    json_end_array(w);
    free(chain);
}

void heap_path_write(json_writer *w, JNIEnv *jni, jclass *classes, const heap_graph *g, const thread_list *threads,
                     uint32_t object, uint32_t max_depth) {
    uint32_t length = 1, first = object;
    while (g->nodes[first].parent != 0) {
        first = g->nodes[first].parent;
        length++;
    }
    json_field_int(w, "length", length);
    write_root(w, jni, classes, g, threads, &g->roots[g->nodes[first].root - 1]);
    write_steps(w, jni, classes, g, object, length, max_depth);
}

void thread_list_read(JNIEnv *jni, const heap_graph *g, thread_list *threads) {
    memset(threads, 0, sizeof *threads);
    if ((*the_agent.jvmti)->GetAllThreads(the_agent.jvmti, &threads->count, &threads->threads) != JVMTI_ERROR_NONE) {
        threads->count = 0;
        return;
    }
    jni_reserve_locals(jni, threads->count);
    threads->ids = calloc((size_t)threads->count + 1, sizeof *threads->ids);
    threads->tags = calloc((size_t)threads->count + 1, sizeof *threads->tags);
    for (jint i = 0; i < threads->count && threads->ids != NULL && threads->tags != NULL; i++) {
        threads->ids[i] = thread_java_id(jni, threads->threads[i]);
        if (g->jvmti == NULL || (*g->jvmti)->GetTag(g->jvmti, threads->threads[i], &threads->tags[i]) != JVMTI_ERROR_NONE) {
            threads->tags[i] = 0;
        }
    }
    if (threads->ids == NULL || threads->tags == NULL) {
        threads->count = 0;
    }
}

void thread_list_free(JNIEnv *jni, thread_list *threads) {
    for (jint i = 0; i < threads->count; i++) {
        (*jni)->DeleteLocalRef(jni, threads->threads[i]);
    }
    agent_deallocate(threads->threads);
    free(threads->ids);
    free(threads->tags);
}

/* "com.shop.Cache$Entry[]" as Class.getName() has it ("[Lcom.shop.Cache$Entry;"); other names unchanged. malloc'd. */
static char *requested_name(const char *name) {
    static const char *const primitives[][2] = { { "boolean", "Z" }, { "byte", "B" }, { "char", "C" }, { "short", "S" },
        { "int", "I" }, { "long", "J" }, { "float", "F" }, { "double", "D" } };
    size_t len = strlen(name);
    size_t dims = 0;
    while (len >= 2 && name[len - 2] == '[' && name[len - 1] == ']') {
        len -= 2;
        dims++;
    }
    char *out = malloc(dims + len + 3);
    if (out == NULL || dims == 0) {
        if (out != NULL) {
            strcpy(out, name);
        }
        return out;
    }
    memset(out, '[', dims);
    char *p = out + dims;
    for (size_t i = 0; i < sizeof primitives / sizeof primitives[0]; i++) {
        if (strlen(primitives[i][0]) == len && strncmp(name, primitives[i][0], len) == 0) {
            strcpy(p, primitives[i][1]);
            return out;
        }
    }
    *p++ = 'L';
    memcpy(p, name, len);
    strcpy(p + len, ";");
    return out;
}

void heap_classes_mark(JNIEnv *jni, jclass *classes, jint count, char *const *wanted, int wanted_count, uint8_t *flags, uint8_t *asked,
                       jint *referent) {
    jclass reference = (*jni)->FindClass(jni, "java/lang/ref/Reference");
    if (reference == NULL) {
        (*jni)->ExceptionClear(jni);
    }
    for (jint i = 0; i < count; i++) {
        char *signature = NULL;
        flags[i] = 0;
        if (asked != NULL) {
            asked[i] = 0;
        }
        referent[i] = reference != NULL && (*jni)->IsAssignableFrom(jni, classes[i], reference)
                ? field_index(jni, classes[i], reference, "referent") : -1;
        if ((*the_agent.jvmti)->GetClassSignature(the_agent.jvmti, classes[i], &signature, NULL) != JVMTI_ERROR_NONE) {
            continue;
        }
        char *name = java_class_name(signature);
        for (int k = 0; name != NULL && k < wanted_count; k++) {
            if (strcmp(name, wanted[k]) == 0) {
                flags[i] = NODE_TARGET_CLASS;
                asked[i] = (uint8_t)(k + 1);
                break;
            }
        }
        if (flags[i] == 0 && signature[0] == '[' && signature[1] != 'L' && signature[1] != '[') {
            flags[i] = NODE_PRIMITIVE_ARRAY_CLASS;
        }
        free(name);
        agent_deallocate(signature);
    }
    (*jni)->DeleteLocalRef(jni, reference);
}

/* One walk: the loaded classes, the graph, the pause, and what failed. */
typedef struct {
    JNIEnv *jni;
    jclass *classes;
    jint class_count;
    uint8_t *flags;
    uint8_t *asked;  /* for each loaded class: 1 + the index of the name asked about that it has; 0 */
    jint *referent;
    heap_graph g;
    safepoint_totals before, after;
    int counted;
    int64_t elapsed;
    const heap_paths_sample *samples; /* of samples: each added node's sample is samples[added[node - first_sample]] */
    uint32_t *added;
    uint32_t added_count;
    uint32_t first_sample;
    uint32_t samples_gone;            /* samples whose object was collected before they could be tagged */
    const char *code;                 /* a failure's, else NULL */
    char message[512];
} paths_walk;

/* Whether node i is asked about: a sample's object (asked < 0), or an instance of a class named as the asked-th name. */
static int is_target(const paths_walk *pw, uint32_t i, int asked) {
    const heap_node *node = &pw->g.nodes[i];
    if (asked < 0) {
        return (node->flags & NODE_TARGET_OBJECT) != 0;
    }
    return node->klass != 0 && node->klass <= pw->g.class_count && pw->asked[node->klass - 1] == asked + 1;
}

static void fail_walk(paths_walk *pw, const char *code, const char *message) {
    pw->code = code;
    snprintf(pw->message, sizeof pw->message, "%s", message);
}

static void fail_walk_jvmti(paths_walk *pw, const char *what, jvmtiError err) {
    pw->code = "jvmti_error";
    snprintf(pw->message, sizeof pw->message, "%s failed: JVMTI error %d", what, (int)err);
}

/* Whether a loaded class has the asked-th name asked about (asked < 0: any of them). */
static int class_loaded(const paths_walk *pw, int asked) {
    for (jint i = 0; i < pw->class_count; i++) {
        if (asked < 0 ? pw->asked[i] != 0 : pw->asked[i] == asked + 1) {
            return 1;
        }
    }
    return 0;
}

/* The loaded classes, which are asked about (wanted, as Class.getName() has them; of samples none) and the graph
 * begun. 0, or -1 with pw->code set: also when no class is named as one asked about (class_args, as asked). */
static int walk_prepare(paths_walk *pw, char *const *wanted, const char *const *class_args, int wanted_count, const heap_paths_limits *limits) {
    jvmtiError err = (*the_agent.jvmti)->GetLoadedClasses(the_agent.jvmti, &pw->class_count, &pw->classes);
    if (err != JVMTI_ERROR_NONE) {
        pw->class_count = 0;
        pw->classes = NULL;
        fail_walk_jvmti(pw, "GetLoadedClasses", err);
        return -1;
    }
    jni_reserve_locals(pw->jni, pw->class_count);
    pw->flags = calloc((size_t)pw->class_count + 1, 1);
    pw->asked = calloc((size_t)pw->class_count + 1, 1);
    pw->referent = calloc((size_t)pw->class_count + 1, sizeof *pw->referent);
    if (pw->flags == NULL || pw->asked == NULL || pw->referent == NULL) {
        fail_walk(pw, "out_of_memory", "the agent could not allocate its table of classes");
        return -1;
    }
    heap_classes_mark(pw->jni, pw->classes, pw->class_count, wanted, wanted_count, pw->flags, pw->asked, pw->referent);
    if (wanted_count > 0 && !class_loaded(pw, -1)) {
        char message[512];
        size_t at = (size_t)snprintf(message, sizeof message, "no loaded class is named %.400s", class_args[0]);
        for (int k = 1; k < wanted_count && at < sizeof message; k++) {
            at += (size_t)snprintf(message + at, sizeof message - at, "%s%s", k + 1 == wanted_count ? " or " : ", ", class_args[k]);
        }
        fail_walk(pw, "no_such_class", message);
        return -1;
    }
    err = heap_graph_begin(&pw->g, the_agent.vm, pw->jni, pw->classes, pw->class_count, pw->flags, pw->referent, 0,
                           (uint32_t)limits->max_objects, (uint64_t)limits->max_objects * REFERENCES_PER_OBJECT);
    if (err != JVMTI_ERROR_NONE) {
        fail_walk_jvmti(pw, "SetTag", err);
        return -1;
    }
    return 0;
}

/* Tags each sample's object still there: a local reference for a moment, never kept past its tag. */
static int walk_tag_samples(paths_walk *pw, const heap_paths_sample *samples, uint32_t count) {
    pw->samples = samples;
    pw->added = malloc(((size_t)count + 1) * sizeof *pw->added);
    if (pw->added == NULL) {
        fail_walk(pw, "out_of_memory", "the agent could not allocate its table of samples");
        return -1;
    }
    pw->first_sample = pw->g.node_count + 1;
    for (uint32_t i = 0; i < count && !pw->g.over_budget; i++) {
        jobject object = (*pw->jni)->NewLocalRef(pw->jni, samples[i].ref);
        jvmtiError err = JVMTI_ERROR_NONE;
        uint32_t node = heap_graph_add_target_object(&pw->g, object, &err);
        (*pw->jni)->DeleteLocalRef(pw->jni, object);
        if (err != JVMTI_ERROR_NONE) {
            fail_walk_jvmti(pw, "SetTag", err);
            return -1;
        }
        if (node != 0) {
            pw->added[pw->added_count++] = i;
        } else if (!pw->g.over_budget) {
            pw->samples_gone++;
        }
    }
    return 0;
}

/* The walk at a safepoint, its pause, and the search after it. 0, or -1 with pw->code set. */
static int walk_run(paths_walk *pw, const heap_paths_limits *limits) {
    int counted = safepoint_totals_read_settled(pw->jni, &pw->before) == 0;
    int64_t started = events_now_nanos();
    jvmtiError err = pw->g.over_budget ? JVMTI_ERROR_NONE : heap_graph_walk(&pw->g);
    pw->elapsed = events_now_nanos() - started;
    pw->counted = counted && safepoint_totals_read(pw->jni, &pw->after) == 0;
    if (err != JVMTI_ERROR_NONE) {
        fail_walk_jvmti(pw, "FollowReferences", err);
        return -1;
    }
    if (pw->g.over_budget) {
        char message[512];
        snprintf(message, sizeof message,
                 "the heap holds more than %lld objects or %lld references reachable from its roots (--max-objects %lld, %d references an object):"
                 " the agent stopped its walk there, after %.1f ms, rather than take more memory in the target",
                 (long long)limits->max_objects, (long long)limits->max_objects * REFERENCES_PER_OBJECT, (long long)limits->max_objects,
                 REFERENCES_PER_OBJECT, (double)pw->elapsed / 1e6);
        fail_walk(pw, "heap_too_large", message);
        return -1;
    }
    if (pw->g.out_of_memory || heap_graph_search(&pw->g) != 0) {
        fail_walk(pw, "out_of_memory", "the agent could not allocate the heap's graph");
        return -1;
    }
    return 0;
}

static void walk_end(paths_walk *pw) {
    heap_graph_end(&pw->g);
    free(pw->flags);
    free(pw->asked);
    free(pw->referent);
    free(pw->added);
    for (jint i = 0; i < pw->class_count; i++) {
        (*pw->jni)->DeleteLocalRef(pw->jni, pw->classes[i]);
    }
    agent_deallocate(pw->classes);
}

/* The sample whose object is node i, or NULL. */
static const heap_paths_sample *sample_of(const paths_walk *pw, uint32_t i) {
    if (pw->samples == NULL || i < pw->first_sample || i - pw->first_sample >= pw->added_count) {
        return NULL;
    }
    return &pw->samples[pw->added[i - pw->first_sample]];
}

/* The counts of the instances asked about, and their paths grouped, most instances (samples: bytes) first. */
typedef struct {
    uint64_t instances, unreached, unseen;
    path_table table;
} paths_found;

/* The paths to the objects asked about: the samples' (asked < 0) or the instances of the asked-th class. 0, or -1 out of memory. */
static int group_paths(const paths_walk *pw, int asked, paths_found *found) {
    const heap_graph *g = &pw->g;
    memset(found, 0, sizeof *found);
    for (uint32_t i = g->class_count + 1; i <= g->node_count; i++) {
        if (!is_target(pw, i, asked)) {
            continue;
        }
        if (g->nodes[i].root != 0) {
            found->instances++;
        } else if (g->nodes[i].klass == 0) {
            found->unseen++; /* tagged, never reached by the walk: garbage no collection has freed yet */
        } else {
            found->unreached++;
        }
    }
    path_table *table = &found->table;
    table->g = g;
    uint64_t slots = 16;
    while (slots < found->instances * 2) {
        slots *= 2;
    }
    table->slot_mask = slots - 1;
    table->slots = calloc(slots, sizeof *table->slots);
    table->groups = malloc((found->instances + 1) * sizeof *table->groups);
    if (table->slots == NULL || table->groups == NULL) {
        free(table->slots);
        free(table->groups);
        table->groups = NULL;
        return -1;
    }
    for (uint32_t i = g->class_count + 1; i <= g->node_count; i++) {
        if (is_target(pw, i, asked) && g->nodes[i].root != 0) {
            const heap_paths_sample *sample = sample_of(pw, i);
            group_instance(table, i, sample == NULL ? 0 : sample->site, sample == NULL ? 0 : sample->weight);
        }
    }
    free(table->slots);
    table->slots = NULL;
    qsort(table->groups, table->group_count, sizeof *table->groups, by_count);
    return 0;
}

/* The walk's figures, as keys of the object being written. */
static void write_walk(json_writer *w, const paths_walk *pw) {
    const heap_graph *g = &pw->g;
    json_field_int(w, "elapsedNanos", pw->elapsed);
    if (pw->counted) {
        safepoint_totals_write(w, &pw->before, &pw->after);
    }
    json_field_int(w, "objects", (int64_t)(g->node_count - g->class_count));
    json_field_int(w, "roots", g->root_count);
    json_field_int(w, "maxObjects", g->max_nodes);
    json_field_int(w, "maxReferences", (int64_t)g->max_references);
    json_field_int(w, "agentBytes", (int64_t)g->agent_bytes);
}

/* The paths found to the objects asked about, as keys of the object being written; frees found's groups. */
static void write_found(json_writer *w, const paths_walk *pw, const thread_list *threads, paths_found *found, const heap_paths_limits *limits,
                        void (*write_site)(void *arg, json_writer *w, uint32_t site), void *site_arg) {
    const path_table *table = &found->table;
    json_field_int(w, "instances", (int64_t)found->instances);
    json_field_int(w, "unreachedInstances", (int64_t)found->unreached);
    if (pw->samples != NULL) {
        json_field_int(w, "samplesNotReached", (int64_t)(found->unseen + pw->samples_gone));
    }
    json_field_int(w, "pathCount", table->group_count);
    json_begin_array_field(w, "paths");
    for (uint32_t i = 0; i < table->group_count && i < (uint64_t)limits->max_paths; i++) {
        const path_group *group = &table->groups[i];
        json_begin_object(w);
        json_field_int(w, "instances", group->count);
        if (pw->samples != NULL) {
            json_field_int(w, "estimatedBytes", (int64_t)group->weight);
            write_site(site_arg, w, group->site);
        }
        heap_path_write(w, pw->jni, pw->classes, &pw->g, threads, group->instance, (uint32_t)limits->max_depth);
        json_end_object(w);
    }
    json_end_array(w);
    free(table->groups);
}

int heap_paths_limits_read(const request *req, heap_paths_limits *limits) {
    limits->max_paths = request_int(req, "maxPaths", 10);
    limits->max_depth = request_int(req, "maxDepth", 30);
    limits->max_objects = request_int(req, "maxObjects", 1000000);
    return limits->max_paths < 1 || limits->max_paths > PATHS_MAX || limits->max_depth < 1 || limits->max_depth > DEPTH_MAX
            || limits->max_objects < OBJECTS_MIN || limits->max_objects > OBJECTS_MAX ? -1 : 0;
}

void heap_paths_write_samples(json_writer *w, JNIEnv *jni, const heap_paths_sample *samples, uint32_t count, const heap_paths_limits *limits,
                              void (*write_site)(void *arg, json_writer *w, uint32_t site), void *site_arg) {
    json_begin_object(w);
    if (count == 0) { /* nothing to find a path to: no walk, no pause */
        json_field_int(w, "objects", 0);
        json_begin_array_field(w, "paths");
        json_end_array(w);
        json_end_object(w);
        return;
    }
    paths_walk pw;
    memset(&pw, 0, sizeof pw);
    pw.jni = jni;
    paths_found found;
    if (walk_prepare(&pw, NULL, NULL, 0, limits) == 0 && walk_tag_samples(&pw, samples, count) == 0 && walk_run(&pw, limits) == 0) {
        if (group_paths(&pw, -1, &found) != 0) {
            fail_walk(&pw, "out_of_memory", "the agent could not allocate the table of paths");
        } else {
            thread_list threads;
            thread_list_read(jni, &pw.g, &threads);
            write_walk(w, &pw);
            write_found(w, &pw, &threads, &found, limits, write_site, site_arg);
            thread_list_free(jni, &threads);
        }
    }
    if (pw.code != NULL) {
        json_begin_object_field(w, "error");
        json_field_cstring(w, "code", pw.code);
        json_field_cstring(w, "message", pw.message);
        json_end_object(w);
    }
    json_end_object(w);
    walk_end(&pw);
}

/* The names asked about, each as Class.getName() has it (malloc'd into wanted) and as asked (into args): their
 * count, or -1 when the request has none, more than CLASSES_MAX, an empty one or one twice; -2 out of memory. */
static int read_class_names(const request *req, char **wanted, const char **args) {
    size_t count = request_string_count(req, "classNames");
    if (count < 1 || count > CLASSES_MAX) {
        return -1;
    }
    for (size_t k = 0; k < count; k++) {
        args[k] = request_string_at(req, "classNames", k);
        wanted[k] = args[k] == NULL || args[k][0] == '\0' ? NULL : requested_name(args[k]);
        int again = 0;
        for (size_t j = 0; j < k && wanted[k] != NULL && !again; j++) {
            again = strcmp(wanted[j], wanted[k]) == 0;
        }
        if (wanted[k] == NULL || again) {
            int out_of_memory = args[k] != NULL && args[k][0] != '\0' && !again;
            for (size_t j = 0; j <= k; j++) {
                free(wanted[j]);
            }
            return out_of_memory ? -2 : -1;
        }
    }
    return (int)count;
}

void cmd_heap_paths(command_ctx *ctx) {
    heap_paths_limits limits;
    char *wanted[CLASSES_MAX];
    const char *args[CLASSES_MAX];
    int count = heap_paths_limits_read(ctx->req, &limits) != 0 ? -1 : read_class_names(ctx->req, wanted, args);
    if (count == -2) {
        command_fail(ctx, "out_of_memory", "the agent could not copy the class names");
        return;
    }
    if (count < 0) {
        command_fail(ctx, "bad_request", "heap.paths takes classNames (1 to 16 names, each once), maxPaths from 1 to 1000, maxDepth from 1 to 10000,"
                     " maxObjects from 10000 to 200000000");
        return;
    }
    paths_walk pw;
    memset(&pw, 0, sizeof pw);
    pw.jni = ctx->jni;
    paths_found found[CLASSES_MAX];
    int grouped = 0;
    if (walk_prepare(&pw, wanted, args, count, &limits) == 0 && walk_run(&pw, &limits) == 0) {
        while (grouped < count && group_paths(&pw, grouped, &found[grouped]) == 0) {
            grouped++;
        }
        if (grouped < count) {
            fail_walk(&pw, "out_of_memory", "the agent could not allocate the table of paths");
        }
    }
    if (pw.code == NULL) {
        thread_list threads;
        thread_list_read(ctx->jni, &pw.g, &threads);
        command_result(ctx);
        json_begin_object(ctx->out);
        write_walk(ctx->out, &pw);
        json_begin_array_field(ctx->out, "classes");
        for (int k = 0; k < count; k++) {
            json_begin_object(ctx->out);
            json_field_cstring(ctx->out, "className", args[k]);
            json_field_bool(ctx->out, "loaded", class_loaded(&pw, k));
            write_found(ctx->out, &pw, &threads, &found[k], &limits, NULL, NULL);
            json_end_object(ctx->out);
        }
        json_end_array(ctx->out);
        json_end_object(ctx->out);
        thread_list_free(ctx->jni, &threads);
    } else {
        for (int k = 0; k < grouped; k++) {
            free(found[k].table.groups);
        }
        command_fail(ctx, pw.code, pw.message);
    }
    walk_end(&pw);
    for (int k = 0; k < count; k++) {
        free(wanted[k]);
    }
}
