#include "capabilities.h"

#include <string.h>

/* The capabilities the agent wants: those the JDK 17 jvmti.h names, and the one it does not. */
#define NAMED_CAPABILITIES(X)                  \
    X(can_get_thread_cpu_time)                 \
    X(can_get_monitor_info)                    \
    X(can_get_line_numbers)                    \
    X(can_get_source_file_name)                \
    X(can_get_owned_monitor_info)              \
    X(can_get_owned_monitor_stack_depth_info)  \
    X(can_get_current_contended_monitor)       \
    X(can_tag_objects)                         \
    X(can_get_bytecodes)                       \
    X(can_suspend)

#define WANTED_CAPABILITIES(X)                    \
    NAMED_CAPABILITIES(X)                      \
    X(can_support_virtual_threads)

/* can_support_virtual_threads is, in the JDK 21+ jvmti.h, the bit declared right after
 * can_generate_sampled_object_alloc_events; the JDK 17 header leaves that bit unnamed. Its position
 * is found from the named neighbour's, so it follows the compiler's bit-field layout rather than a
 * hard-coded offset. This is the one place that knows the bit. */
static size_t virtual_threads_bit(void) {
    jvmtiCapabilities probe;
    unsigned char bytes[sizeof probe];
    memset(&probe, 0, sizeof probe);
    probe.can_generate_sampled_object_alloc_events = 1;
    memcpy(bytes, &probe, sizeof bytes);
    for (size_t bit = 0; bit < 8 * sizeof bytes; bit++) {
        if (bytes[bit / 8] & (1u << (bit % 8))) {
            return bit + 1;
        }
    }
    return 0; /* not reached */
}

static int has_can_support_virtual_threads(const jvmtiCapabilities *c) {
    size_t bit = virtual_threads_bit();
    return (((const unsigned char *)c)[bit / 8] >> (bit % 8)) & 1u;
}

static void set_can_support_virtual_threads(jvmtiCapabilities *c) {
    size_t bit = virtual_threads_bit();
    ((unsigned char *)c)[bit / 8] |= (unsigned char)(1u << (bit % 8));
}

int capabilities_has_virtual_threads(const jvmtiCapabilities *c) {
    return has_can_support_virtual_threads(c);
}

#define ACCESSORS(name)                                                         \
    static int has_##name(const jvmtiCapabilities *c) { return c->name; }       \
    static void set_##name(jvmtiCapabilities *c) { c->name = 1; }
NAMED_CAPABILITIES(ACCESSORS)

/* Each wanted capability: its name, and accessors for its bit in jvmtiCapabilities. */
typedef struct {
    const char *name;
    int (*has)(const jvmtiCapabilities *);
    void (*set)(jvmtiCapabilities *);
} capability;

#define ENTRY(name) { #name, has_##name, set_##name },
static const capability wanted[] = { WANTED_CAPABILITIES(ENTRY) };
#define WANTED_COUNT (sizeof wanted / sizeof wanted[0])

jvmtiError capabilities_acquire(jvmtiEnv *jvmti, jvmtiCapabilities *held, int exception_events) {
    jvmtiCapabilities potential;
    jvmtiCapabilities request;
    memset(&potential, 0, sizeof potential);
    memset(&request, 0, sizeof request);
    memset(held, 0, sizeof *held);
    jvmtiError err = (*jvmti)->GetPotentialCapabilities(jvmti, &potential);
    if (err != JVMTI_ERROR_NONE) {
        return err;
    }
    for (size_t i = 0; i < WANTED_COUNT; i++) {
        if (wanted[i].has(&potential)) {
            wanted[i].set(&request);
        }
    }
    request.can_generate_exception_events = exception_events && potential.can_generate_exception_events;
    if ((*jvmti)->AddCapabilities(jvmti, &request) != JVMTI_ERROR_NONE) {
        /* Potential is not a promise: fall back to one at a time, keeping what is granted. */
        for (size_t i = 0; i < WANTED_COUNT; i++) {
            jvmtiCapabilities one;
            if (!wanted[i].has(&request)) {
                continue;
            }
            memset(&one, 0, sizeof one);
            wanted[i].set(&one);
            (void)(*jvmti)->AddCapabilities(jvmti, &one);
        }
        if (request.can_generate_exception_events) {
            jvmtiCapabilities one;
            memset(&one, 0, sizeof one);
            one.can_generate_exception_events = 1;
            (void)(*jvmti)->AddCapabilities(jvmti, &one);
        }
    }
    return (*jvmti)->GetCapabilities(jvmti, held);
}

/* Taken only while an event command runs (events.c), never at attach. */
#define EVENT_CAPABILITIES(X)                   \
    X(can_generate_sampled_object_alloc_events) \
    X(can_generate_monitor_events)              \
    X(can_generate_compiled_method_load_events)

EVENT_CAPABILITIES(ACCESSORS)
static const capability on_demand[] = { EVENT_CAPABILITIES(ENTRY) };

void capabilities_write(json_writer *w, const jvmtiCapabilities *held) {
    json_begin_array(w);
    for (size_t i = 0; i < WANTED_COUNT; i++) {
        if (wanted[i].has(held)) {
            json_cstring(w, wanted[i].name);
        }
    }
    for (size_t i = 0; i < sizeof on_demand / sizeof on_demand[0]; i++) {
        if (on_demand[i].has(held)) {
            json_cstring(w, on_demand[i].name);
        }
    }
    if (held->can_generate_exception_events) {
        json_cstring(w, "can_generate_exception_events");
    }
    json_end_array(w);
}
