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
