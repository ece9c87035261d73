#include "os_priority.h"

#include <stdint.h>

#include "vm_flags.h"

/* The flags cannot change while the JVM runs: read once. */
static struct {
    int read;
    int known;
    int native_priorities;
} policy;

static void read_policy(void) {
    policy.read = 1;
    unsigned char use_priorities;
    /* int on JDK 17 and later, intx before: the low four bytes of either (little-endian on every
     * architecture the agent is built for) are zero exactly when the policy is 0. */
    int32_t priority_policy;
    if (vm_flag_bytes("UseThreadPriorities", &use_priorities, sizeof use_priorities) == 0
        && vm_flag_bytes("ThreadPriorityPolicy", &priority_policy, sizeof priority_policy) == 0) {
        policy.known = 1;
        policy.native_priorities = use_priorities != 0 && priority_policy != 0;
    }
}

int os_priority(int nice, int *os_prio) {
    if (!policy.read) {
        read_policy();
    }
    if (!policy.known) {
        return -1;
    }
    *os_prio = policy.native_priorities ? nice : 0;
    return 0;
}
