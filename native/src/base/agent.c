#include "agent.h"

agent the_agent;

static agent_state state = AGENT_IDLE;

void agent_deallocate(void *memory) {
    if (memory != NULL) {
        (*the_agent.jvmti)->Deallocate(the_agent.jvmti, (unsigned char *)memory);
    }
}

int agent_move(agent_state from, agent_state to) {
    return __atomic_compare_exchange_n(&state, &from, to, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}

agent_state agent_current(void) {
    return __atomic_load_n(&state, __ATOMIC_SEQ_CST);
}

/* The bounds of the section AGENT_RELEASE fills, which the linker defines. */
extern const agent_release_fn __start_agent_releases[] __attribute__((visibility("hidden")));
extern const agent_release_fn __stop_agent_releases[] __attribute__((visibility("hidden")));

void agent_release_all(JNIEnv *jni) {
    for (const agent_release_fn *release = __start_agent_releases; release < __stop_agent_releases; release++) {
        (*release)(jni);
    }
}
