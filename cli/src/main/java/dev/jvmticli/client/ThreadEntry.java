package dev.jvmticli.client;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;

/**
 * One live thread as the agent reports it.
 *
 * @param id       java.lang.Thread id
 * @param state    java.lang.Thread.State name
 * @param flags    JVMTI detail flags: sleeping, in_object_wait, parked, suspended, interrupted, in_native
 * @param cpuNanos CPU time used, -1 when unknown
 * @param nid      native (OS) thread id, 0 when unknown
 * @param agent    true for the agent's own thread
 * @param waitingFor what a BLOCKED or WAITING thread waits for, and its owner; null otherwise
 *                   (and in stacks answers, which carry it beside the thread)
 */
public record ThreadEntry(long id, String name, String state, List<String> flags, boolean daemon, int priority,
                          String group, long cpuNanos, long nid, boolean agent,
                          @JsonInclude(JsonInclude.Include.NON_NULL) WaitingFor waitingFor) {
    public boolean hasFlag(String flag) {
        return flags != null && flags.contains(flag);
    }
}
