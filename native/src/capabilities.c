#include "capabilities.h"

#include <string.h>

/* Each wanted capability: its name, and accessors for its bit in jvmtiCapabilities. */
#define WANTED_CAPABILITIES(X)                 \
    X(can_get_thread_cpu_time)                 \
    X(can_get_monitor_info)                    \
    X(can_get_line_numbers)                    \
    X(can_get_source_file_name)                \
    X(can_get_owned_monitor_info)              \
    X(can_get_owned_monitor_stack_depth_info)  \
    X(can_get_current_contended_monitor)       \
    X(can_tag_objects)                         \
    X(can_get_bytecodes)

#define ACCESSORS(name)                                                         \
    static int has_##name(const jvmtiCapabilities *c) { return c->name; }       \
    static void set_##name(jvmtiCapabilities *c) { c->name = 1; }
WANTED_CAPABILITIES(ACCESSORS)

typedef struct {
    const char *name;
    int (*has)(const jvmtiCapabilities *);
    void (*set)(jvmtiCapabilities *);
} capability;

#define ENTRY(name) { #name, has_##name, set_##name },
static const capability wanted[] = { WANTED_CAPABILITIES(ENTRY) };
#define WANTED_COUNT (sizeof wanted / sizeof wanted[0])

jvmtiError capabilities_acquire(jvmtiEnv *jvmti, jvmtiCapabilities *held) {
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
    }
    return (*jvmti)->GetCapabilities(jvmti, held);
}

void capabilities_write(json_writer *w, const jvmtiCapabilities *held) {
    json_begin_array(w);
    for (size_t i = 0; i < WANTED_COUNT; i++) {
        if (wanted[i].has(held)) {
            json_cstring(w, wanted[i].name);
        }
    }
    json_end_array(w);
}
