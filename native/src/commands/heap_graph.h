/* The reference graph of the heap from its roots, as JVMTI FollowReferences reports it in one walk
 * at a safepoint, and the shortest path to every object it reached (a breadth-first search in the
 * agent's memory, after the walk).
 *
 * Every loaded class is a root of its own (its static fields and constant pool hold objects for as
 * long as its loader lives), so a path ends at a class's static field rather than going through the
 * class loader's list of classes. Objects are the walk's tags: node n is the object tagged n, in a
 * JVMTI environment of the graph's own whose disposal drops every tag at once. */
#ifndef JVMTICLI_HEAP_GRAPH_H
#define JVMTICLI_HEAP_GRAPH_H

#include <jni.h>
#include <jvmti.h>
#include <stdint.h>

/* What a root is (the JVMTI reference kind that reached its object) and where. */
typedef struct {
    jvmtiHeapReferenceKind kind; /* JNI_GLOBAL, MONITOR, STACK_LOCAL, JNI_LOCAL, THREAD, OTHER, or a class's STATIC_FIELD, CONSTANT_POOL, CLASS_LOADER, ... */
    uint32_t object;             /* the node the root holds */
    uint32_t klass;              /* the class node of a class's reference, else 0 */
    jint index;                  /* the field index (STATIC_FIELD) or constant pool index */
    jlong thread_id;             /* STACK_LOCAL, JNI_LOCAL: Thread.getId() */
    jmethodID method;            /* STACK_LOCAL, JNI_LOCAL: the frame's method */
    jlocation location;          /* STACK_LOCAL */
    jint depth;                  /* STACK_LOCAL, JNI_LOCAL: the frame's depth */
    jint slot;                   /* STACK_LOCAL */
    uint64_t bytes;              /* filled by the search: what the objects whose shortest path starts here take */
} heap_root;

/* A reference JVMTI does not report: from a class loader to a class it defined, which the JVM
 * keeps (in its class loader data) for as long as the loader lives. */
#define HEAP_REFERENCE_DEFINED_CLASS ((jvmtiHeapReferenceKind)100)

enum { NODE_CLASS = 1, NODE_TARGET_CLASS = 2, NODE_PRIMITIVE_ARRAY_CLASS = 4, NODE_AGENT_THREAD = 8, NODE_TARGET_OBJECT = 16 };

typedef struct {
    uint32_t klass;    /* the class node of the object's class (0: a class loaded after the walk began) */
    uint32_t parent;   /* the node before it on its shortest path; 0 where a root holds it */
    uint32_t root;     /* 1 + index in roots of the root of its shortest path; 0: not reached */
    jint step_index;   /* the reference from parent: field index, or array index */
    uint8_t step_kind; /* jvmtiHeapReferenceKind of that reference */
    uint8_t flags;     /* NODE_* */
    uint64_t bytes;    /* its size, and that of the primitive arrays it references (never nodes of their own) */
} heap_node;

typedef struct {
    jvmtiEnv *jvmti;        /* the graph's own environment: its tags */
    heap_node *nodes;       /* nodes[0] is unused */
    uint32_t node_count;    /* nodes[1..node_count] */
    uint32_t class_count;   /* nodes 1..class_count are the loaded classes, in the order given */
    jint *referent_index;   /* of each class: see heap_graph_begin */
    uint32_t max_nodes, max_nodes_allocated;
    uint64_t max_references;
    uint64_t reference_count, references_allocated;
    uint32_t *from, *to;    /* the references between objects, as reported */
    jint *index;
    uint8_t *kind;
    heap_root *roots;
    uint32_t root_count, root_capacity;
    jlong agent_thread_id;
    int classes_are_objects; /* see heap_graph_begin */
    int over_budget;        /* the walk stopped: more objects or references than the bounds */
    int out_of_memory;
    uint64_t agent_bytes;   /* the most the graph's arrays took at once */
} heap_graph;

/* Makes the graph's environment and tags each class (classes[i] becomes node i + 1, with
 * class_flags[i]: NODE_TARGET_CLASS for the classes whose instances are asked about,
 * NODE_PRIMITIVE_ARRAY_CLASS for the primitive arrays that are not), and the agent's own thread.
 * referent_index[i] is the FollowReferences index of Reference.referent in classes[i] (-1: not a
 * Reference): a referent is no strong reference, and the graph leaves it out.
 * With classes_are_objects, a class is an object like any other, reached from its loader, its
 * instances and whatever holds it, and its static fields are roots only once the class itself is
 * reached: what is reached is what the collector keeps, class loaders included; otherwise each
 * class is a root of its own (its loader is never asked about).
 * Returns a JVMTI error; g->over_budget when the classes alone pass max_nodes. */
jvmtiError heap_graph_begin(heap_graph *g, JavaVM *vm, JNIEnv *jni, jclass *classes, jint class_count, const uint8_t *class_flags,
                            const jint *referent_index, int classes_are_objects,
                            uint32_t max_nodes, uint64_t max_references);

/* Tags one more object, of class node klass, as a node of its own before the walk (e.g. a class
 * loader): its node number, 0 when past max_nodes or out of memory; an object tagged already keeps
 * its node. */
uint32_t heap_graph_add_object(heap_graph *g, jobject object, uint32_t klass, uint8_t flags);

/* After heap_graph_begin, before the walk: tags object as an object asked about (NODE_TARGET_OBJECT),
 * whatever its class, a primitive array too. Its node, or 0 when object is NULL or the bound is
 * passed (g->over_budget), or on a JVMTI failure (*err). */
uint32_t heap_graph_add_target_object(heap_graph *g, jobject object, jvmtiError *err);

/* The walk (FollowReferences, at a safepoint). Returns a JVMTI error; g->over_budget or
 * g->out_of_memory when it stopped early. */
jvmtiError heap_graph_walk(heap_graph *g);

/* Adds a reference the walk does not report (HEAP_REFERENCE_DEFINED_CLASS), after the walk: 0
 * when past the bound of references (g->over_budget) or out of memory. */
int heap_graph_add_reference(heap_graph *g, uint32_t from, uint32_t to, jvmtiHeapReferenceKind kind, jint index);

/* The breadth-first search from the roots; frees the references. 0, or -1 out of memory. */
int heap_graph_search(heap_graph *g);

/* Drops the tags (disposes of the environment) and frees everything. */
void heap_graph_end(heap_graph *g);

#endif
