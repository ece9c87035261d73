#include "heap_graph.h"

#include <stdlib.h>
#include <string.h>

#include "agent.h"

#define REFERENCE_BYTES (2 * sizeof(uint32_t) + sizeof(jint) + sizeof(uint8_t))

static void count_peak(heap_graph *g, uint64_t extra) {
    uint64_t now = (uint64_t)g->max_nodes_allocated * sizeof(heap_node) + g->references_allocated * REFERENCE_BYTES
            + (uint64_t)g->root_capacity * sizeof(heap_root) + extra;
    if (now > g->agent_bytes) {
        g->agent_bytes = now;
    }
}

/* Grows an array to hold one more than used, doubling, never past limit: 0 when it cannot. */
static int grow(void **array, uint64_t *capacity, uint64_t used, uint64_t limit, size_t element) {
    if (used < *capacity) {
        return 1;
    }
    uint64_t wanted = *capacity == 0 ? 4096 : *capacity * 2;
    if (wanted > limit) {
        wanted = limit;
    }
    if (wanted <= used) {
        return 0;
    }
    void *bigger = realloc(*array, wanted * element);
    if (bigger == NULL) {
        return 0;
    }
    *array = bigger;
    *capacity = wanted;
    return 1;
}

static int add_node(heap_graph *g, uint32_t klass, uint64_t bytes, uint8_t flags) {
    if ((uint64_t)g->node_count + 1 > g->max_nodes) {
        g->over_budget = 1;
        return 0;
    }
    uint64_t capacity = g->max_nodes_allocated;
    if (!grow((void **)&g->nodes, &capacity, (uint64_t)g->node_count + 1, (uint64_t)g->max_nodes + 1, sizeof(heap_node))) {
        g->out_of_memory = 1;
        return 0;
    }
    g->max_nodes_allocated = (uint32_t)capacity;
    heap_node *node = &g->nodes[++g->node_count];
    memset(node, 0, sizeof *node);
    node->klass = klass;
    node->bytes = bytes;
    node->flags = flags;
    count_peak(g, 0);
    return 1;
}

/* Roots and references share one bound: both are what the walk reported. */
static int count_reference(heap_graph *g) {
    if (g->reference_count + g->root_count + 1 > g->max_references) {
        g->over_budget = 1;
        return 0;
    }
    return 1;
}

static int add_root(heap_graph *g, const heap_root *root) {
    if (!count_reference(g)) {
        return 0;
    }
    uint64_t capacity = g->root_capacity;
    if (!grow((void **)&g->roots, &capacity, g->root_count, g->max_references, sizeof(heap_root))) {
        g->out_of_memory = 1;
        return 0;
    }
    g->root_capacity = (uint32_t)capacity;
    g->roots[g->root_count++] = *root;
    count_peak(g, 0);
    return 1;
}

static int add_reference(heap_graph *g, uint32_t from, uint32_t to, jvmtiHeapReferenceKind kind, jint index) {
    if (!count_reference(g)) {
        return 0;
    }
    if (g->reference_count == g->references_allocated) {
        uint64_t capacity = g->references_allocated;
        uint64_t wanted = capacity == 0 ? 16384 : capacity * 2;
        if (wanted > g->max_references) {
            wanted = g->max_references;
        }
        uint32_t *from_array = realloc(g->from, wanted * sizeof *g->from);
        g->from = from_array != NULL ? from_array : g->from;
        uint32_t *to_array = from_array == NULL ? NULL : realloc(g->to, wanted * sizeof *g->to);
        g->to = to_array != NULL ? to_array : g->to;
        jint *index_array = to_array == NULL ? NULL : realloc(g->index, wanted * sizeof *g->index);
        g->index = index_array != NULL ? index_array : g->index;
        uint8_t *kind_array = index_array == NULL ? NULL : realloc(g->kind, wanted * sizeof *g->kind);
        g->kind = kind_array != NULL ? kind_array : g->kind;
        if (kind_array == NULL) {
            g->out_of_memory = 1;
            return 0;
        }
        g->references_allocated = wanted;
        count_peak(g, 0);
    }
    uint64_t at = g->reference_count++;
    g->from[at] = from;
    g->to[at] = to;
    g->index[at] = index;
    g->kind[at] = (uint8_t)kind;
    return 1;
}

int heap_graph_add_reference(heap_graph *g, uint32_t from, uint32_t to, jvmtiHeapReferenceKind kind, jint index) {
    return add_reference(g, from, to, kind, index);
}

static int is_root_kind(jvmtiHeapReferenceKind kind) {
    return kind == JVMTI_HEAP_REFERENCE_JNI_GLOBAL || kind == JVMTI_HEAP_REFERENCE_SYSTEM_CLASS
        || kind == JVMTI_HEAP_REFERENCE_MONITOR || kind == JVMTI_HEAP_REFERENCE_STACK_LOCAL
        || kind == JVMTI_HEAP_REFERENCE_JNI_LOCAL || kind == JVMTI_HEAP_REFERENCE_THREAD
        || kind == JVMTI_HEAP_REFERENCE_OTHER;
}

/* A root as the walk reported it; 0 when it is the agent's own thread's (never the target's). */
static int describe_root(const heap_graph *g, jvmtiHeapReferenceKind kind, const jvmtiHeapReferenceInfo *info, uint32_t object,
                         heap_root *root) {
    memset(root, 0, sizeof *root);
    root->kind = kind;
    root->object = object;
    if (kind == JVMTI_HEAP_REFERENCE_STACK_LOCAL && info != NULL) {
        root->thread_id = info->stack_local.thread_id;
        root->method = info->stack_local.method;
        root->location = info->stack_local.location;
        root->depth = info->stack_local.depth;
        root->slot = info->stack_local.slot;
        return root->thread_id != g->agent_thread_id;
    }
    if (kind == JVMTI_HEAP_REFERENCE_JNI_LOCAL && info != NULL) {
        root->thread_id = info->jni_local.thread_id;
        root->method = info->jni_local.method;
        root->depth = info->jni_local.depth;
        return root->thread_id != g->agent_thread_id;
    }
    if (kind == JVMTI_HEAP_REFERENCE_THREAD) {
        return !(g->nodes[object].flags & NODE_AGENT_THREAD);
    }
    return 1;
}

static jint JNICALL on_reference(jvmtiHeapReferenceKind kind, const jvmtiHeapReferenceInfo *info, jlong class_tag,
                                 jlong referrer_class_tag, jlong size, jlong *tag_ptr, jlong *referrer_tag_ptr, jint length,
                                 void *user_data) {
    (void)referrer_class_tag;
    (void)length;
    heap_graph *g = user_data;
    uint32_t klass = class_tag > 0 && (uint64_t)class_tag <= g->class_count ? (uint32_t)class_tag : 0;
    uint32_t from = referrer_tag_ptr == NULL || *referrer_tag_ptr <= 0 || (uint64_t)*referrer_tag_ptr > g->node_count
            ? 0 : (uint32_t)*referrer_tag_ptr;
    uint32_t object = *tag_ptr > 0 && (uint64_t)*tag_ptr <= g->node_count ? (uint32_t)*tag_ptr : 0;
    if (klass != 0 && (g->nodes[klass].flags & NODE_PRIMITIVE_ARRAY_CLASS)
            && (object == 0 || !(g->nodes[object].flags & NODE_TARGET_OBJECT))) {
        if (from != 0) { /* no references in it: its bytes go to the object that holds it */
            g->nodes[from].bytes += (uint64_t)size;
        }
        return 0;
    }
    if (object == 0) {
        if (!add_node(g, klass, (uint64_t)size, 0)) {
            return JVMTI_VISIT_ABORT;
        }
        object = g->node_count;
        *tag_ptr = object;
    } else if (g->nodes[object].klass == 0) {
        g->nodes[object].klass = klass;
    }
    if ((g->nodes[object].flags & NODE_CLASS) && !g->classes_are_objects) {
        return JVMTI_VISIT_OBJECTS; /* a root of its own */
    }
    heap_root root;
    if (referrer_tag_ptr == NULL && is_root_kind(kind)) {
        if (describe_root(g, kind, info, object, &root) && !add_root(g, &root)) {
            return JVMTI_VISIT_ABORT;
        }
    } else if (from == 0) {
        return JVMTI_VISIT_OBJECTS; /* from an object of no node: a class loaded after the walk began */
    } else if ((g->nodes[from].flags & NODE_CLASS)
            && (!g->classes_are_objects || kind == JVMTI_HEAP_REFERENCE_STATIC_FIELD || kind == JVMTI_HEAP_REFERENCE_CONSTANT_POOL)) {
        memset(&root, 0, sizeof root);
        root.kind = kind;
        root.object = object;
        root.klass = from;
        root.index = kind == JVMTI_HEAP_REFERENCE_STATIC_FIELD ? info->field.index
                : kind == JVMTI_HEAP_REFERENCE_CONSTANT_POOL ? info->constant_pool.index : -1;
        if (!add_root(g, &root)) {
            return JVMTI_VISIT_ABORT;
        }
    } else if (kind == JVMTI_HEAP_REFERENCE_FIELD && g->nodes[from].klass != 0
            && g->referent_index[g->nodes[from].klass - 1] == info->field.index) {
        return JVMTI_VISIT_OBJECTS; /* a Reference's referent: the object may be reached otherwise */
    } else {
        jint index = kind == JVMTI_HEAP_REFERENCE_FIELD ? info->field.index
                : kind == JVMTI_HEAP_REFERENCE_ARRAY_ELEMENT ? info->array.index : -1;
        if (!add_reference(g, from, object, kind, index)) {
            return JVMTI_VISIT_ABORT;
        }
    }
    return JVMTI_VISIT_OBJECTS;
}

jvmtiError heap_graph_begin(heap_graph *g, JavaVM *vm, JNIEnv *jni, jclass *classes, jint class_count, const uint8_t *class_flags,
                            const jint *referent_index, int classes_are_objects, uint32_t max_nodes, uint64_t max_references) {
    memset(g, 0, sizeof *g);
    g->classes_are_objects = classes_are_objects;
    g->max_nodes = max_nodes;
    g->max_references = max_references;
    g->agent_thread_id = -1;
    if ((uint64_t)class_count + 1 > max_nodes) {
        g->over_budget = 1;
        return JVMTI_ERROR_NONE;
    }
    g->referent_index = malloc(((size_t)class_count + 1) * sizeof *g->referent_index);
    if (g->referent_index == NULL) {
        return JVMTI_ERROR_OUT_OF_MEMORY;
    }
    memcpy(g->referent_index, referent_index, (size_t)class_count * sizeof *referent_index);
    if ((*vm)->GetEnv(vm, (void **)&g->jvmti, JVMTI_VERSION_1_2) != JNI_OK) {
        g->jvmti = NULL;
        return JVMTI_ERROR_INTERNAL;
    }
    jvmtiCapabilities wanted;
    memset(&wanted, 0, sizeof wanted);
    wanted.can_tag_objects = 1;
    jvmtiError err = (*g->jvmti)->AddCapabilities(g->jvmti, &wanted);
    for (jint i = 0; err == JVMTI_ERROR_NONE && i < class_count; i++) {
        if (!add_node(g, 0, 0, (uint8_t)(NODE_CLASS | class_flags[i]))) {
            return JVMTI_ERROR_OUT_OF_MEMORY;
        }
        err = (*g->jvmti)->SetTag(g->jvmti, classes[i], (jlong)(i + 1));
    }
    g->class_count = (uint32_t)class_count;
    if (err == JVMTI_ERROR_NONE && the_agent.server_thread != NULL) {
        jclass thread_class = (*jni)->GetObjectClass(jni, the_agent.server_thread);
        jfieldID tid = thread_class == NULL ? NULL : (*jni)->GetFieldID(jni, thread_class, "tid", "J");
        if (tid == NULL) {
            (*jni)->ExceptionClear(jni);
        } else {
            g->agent_thread_id = (*jni)->GetLongField(jni, the_agent.server_thread, tid);
        }
        (*jni)->DeleteLocalRef(jni, thread_class);
        if (!add_node(g, 0, 0, NODE_AGENT_THREAD)) {
            return JVMTI_ERROR_OUT_OF_MEMORY;
        }
        err = (*g->jvmti)->SetTag(g->jvmti, the_agent.server_thread, (jlong)g->node_count);
    }
    return err;
}

uint32_t heap_graph_add_object(heap_graph *g, jobject object, uint32_t klass, uint8_t flags) {
    jlong tag = 0;
    if (g->jvmti == NULL || (*g->jvmti)->GetTag(g->jvmti, object, &tag) != JVMTI_ERROR_NONE) {
        return 0;
    }
    if (tag > 0 && (uint64_t)tag <= g->node_count) {
        return (uint32_t)tag;
    }
    if (!add_node(g, klass, 0, flags) || (*g->jvmti)->SetTag(g->jvmti, object, (jlong)g->node_count) != JVMTI_ERROR_NONE) {
        return 0;
    }
    return g->node_count;
}

uint32_t heap_graph_add_target_object(heap_graph *g, jobject object, jvmtiError *err) {
    *err = JVMTI_ERROR_NONE;
    jlong size = 0;
    if (object == NULL || g->jvmti == NULL || g->over_budget
            || (*err = (*g->jvmti)->GetObjectSize(g->jvmti, object, &size)) != JVMTI_ERROR_NONE) {
        return 0;
    }
    if (!add_node(g, 0, (uint64_t)size, NODE_TARGET_OBJECT)) {
        *err = g->out_of_memory ? JVMTI_ERROR_OUT_OF_MEMORY : JVMTI_ERROR_NONE;
        return 0;
    }
    *err = (*g->jvmti)->SetTag(g->jvmti, object, (jlong)g->node_count);
    return *err == JVMTI_ERROR_NONE ? g->node_count : 0;
}

jvmtiError heap_graph_walk(heap_graph *g) {
    if (g->jvmti == NULL || g->over_budget) {
        return JVMTI_ERROR_NONE;
    }
    jvmtiHeapCallbacks callbacks;
    memset(&callbacks, 0, sizeof callbacks);
    callbacks.heap_reference_callback = on_reference;
    return (*g->jvmti)->FollowReferences(g->jvmti, 0, NULL, NULL, &callbacks, g);
}

static void free_references(heap_graph *g) {
    free(g->from);
    free(g->to);
    free(g->index);
    free(g->kind);
    g->from = g->to = NULL;
    g->index = NULL;
    g->kind = NULL;
    g->references_allocated = 0;
}

/* Visits node object from parent (0: a root) if nothing reached it before: 1 if it did now. */
static int reach(heap_graph *g, uint32_t object, uint32_t parent, uint32_t root, uint8_t kind, jint index) {
    heap_node *node = &g->nodes[object];
    if (node->root != 0 || ((node->flags & NODE_CLASS) && !g->classes_are_objects)) {
        return 0;
    }
    node->root = root;
    node->parent = parent;
    node->step_kind = kind;
    node->step_index = index;
    return 1;
}

/* The roots of each class node (its static fields, its constant pool), grouped by class. 0, or -1 out of memory. */
static int index_class_roots(const heap_graph *g, uint32_t **class_first, uint32_t **class_roots) {
    uint32_t *first = calloc((size_t)g->class_count + 2, sizeof *first);
    uint32_t *placed = calloc((size_t)g->class_count + 1, sizeof *placed);
    uint32_t *roots = malloc(((size_t)g->root_count + 1) * sizeof *roots);
    if (first == NULL || placed == NULL || roots == NULL) {
        free(first);
        free(placed);
        free(roots);
        return -1;
    }
    for (uint32_t i = 0; i < g->root_count; i++) {
        first[g->roots[i].klass + 1]++;
    }
    for (uint32_t k = 1; k <= g->class_count + 1; k++) {
        first[k] += first[k - 1];
    }
    for (uint32_t i = 0; i < g->root_count; i++) {
        uint32_t k = g->roots[i].klass;
        roots[first[k] + placed[k]++] = i;
    }
    free(placed);
    *class_first = first;
    *class_roots = roots;
    return 0;
}

int heap_graph_search(heap_graph *g) {
    uint64_t n = (uint64_t)g->node_count + 1;
    uint32_t *first = calloc(n + 1, sizeof *first); /* the references from node i are order[first[i] .. first[i + 1]) */
    uint32_t *order = malloc((g->reference_count + 1) * sizeof *order);
    uint32_t *queue = malloc(n * sizeof *queue);
    if (first == NULL || order == NULL || queue == NULL) {
        free(first);
        free(order);
        free(queue);
        free_references(g);
        return -1;
    }
    for (uint64_t r = 0; r < g->reference_count; r++) {
        first[g->from[r] + 1]++;
    }
    for (uint64_t i = 1; i <= n; i++) {
        first[i] += first[i - 1];
    }
    uint32_t *next_slot = queue; /* borrowed until the search begins */
    memcpy(next_slot, first, n * sizeof *first);
    for (uint64_t r = 0; r < g->reference_count; r++) {
        order[next_slot[g->from[r]]++] = (uint32_t)r;
    }
    /* With classes as objects, a class's static fields and constant pool are roots once the class
     * is reached: class_roots[class_first[k] .. class_first[k + 1]) are class node k's. */
    uint32_t *class_first = NULL, *class_roots = NULL;
    if (g->classes_are_objects && index_class_roots(g, &class_first, &class_roots) != 0) {
        free(first);
        free(order);
        free(queue);
        free_references(g);
        return -1;
    }
    count_peak(g, (n + 1 + g->reference_count + 1 + n + (class_first == NULL ? 0 : g->class_count + 2 + g->root_count + 1)) * sizeof(uint32_t));
    /* Static fields first: an object a static field holds is also, now and then, in some frame's
     * local, and the static field is what keeps it; then every other root in the walk's order. */
    uint64_t head = 0, tail = 0;
    for (int statics = 1; statics >= 0; statics--) {
        for (uint32_t i = 0; i < g->root_count; i++) {
            const heap_root *root = &g->roots[i];
            if ((root->kind == JVMTI_HEAP_REFERENCE_STATIC_FIELD) == statics && (!g->classes_are_objects || root->klass == 0)
                    && reach(g, root->object, 0, i + 1, (uint8_t)root->kind, root->index)) {
                queue[tail++] = root->object;
            }
        }
    }
    while (head < tail) {
        uint32_t parent = queue[head++];
        for (uint32_t at = first[parent]; at < first[parent + 1]; at++) {
            uint32_t r = order[at];
            if (reach(g, g->to[r], parent, g->nodes[parent].root, g->kind[r], g->index[r])) {
                queue[tail++] = g->to[r];
            }
        }
        if (class_first != NULL && parent <= g->class_count) {
            for (uint32_t at = class_first[parent]; at < class_first[parent + 1]; at++) {
                const heap_root *root = &g->roots[class_roots[at]];
                if (reach(g, root->object, 0, class_roots[at] + 1, (uint8_t)root->kind, root->index)) {
                    queue[tail++] = root->object;
                }
            }
        }
    }
    free(class_first);
    free(class_roots);
    free(first);
    free(order);
    free(queue);
    free_references(g);
    for (uint32_t i = 1; i <= g->node_count; i++) {
        if (g->nodes[i].root != 0) {
            g->roots[g->nodes[i].root - 1].bytes += g->nodes[i].bytes;
        }
    }
    return 0;
}

void heap_graph_end(heap_graph *g) {
    if (g->jvmti != NULL) {
        (*g->jvmti)->DisposeEnvironment(g->jvmti);
        g->jvmti = NULL;
    }
    free_references(g);
    free(g->nodes);
    free(g->roots);
    free(g->referent_index);
    g->referent_index = NULL;
    g->nodes = NULL;
    g->roots = NULL;
}
