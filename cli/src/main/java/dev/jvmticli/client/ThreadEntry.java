package dev.jvmticli.client;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/**
 * One live thread as the agent reports it.
 *
 * @param id         java.lang.Thread id
 * @param state      java.lang.Thread.State name
 * @param flags      JVMTI detail flags: sleeping, in_object_wait, parked, suspended, interrupted, in_native
 * @param cpuNanos   CPU time used, -1 when unknown (always for a virtual thread)
 * @param nid        native (OS) thread id, 0 when unknown (always for a virtual thread)
 * @param agent      true for the agent's own thread
 * @param waitingFor what a BLOCKED or WAITING thread waits for, and its owner; null otherwise
 *                   (and in stacks answers, which carry it beside the thread)
 * @param virtual    true for a virtual thread
 * @param carrierId  a mounted virtual thread's carrier (platform) thread, null when unmounted
 * @param pinned     a virtual thread that waits or is blocked without unmounting: it holds its carrier
 * @param carrying   a carrier thread's mounted virtual thread, null when none (or not known)
 * @param mountUnsettled true when which virtual thread is mounted where changed while the thread was
 *                   read: a virtual thread's carrier is then not known (carrierId null), nor whether it
 *                   is pinned; a carrier's frames show a mounted virtual thread but which one is not
 *                   known (carrying null)
 * @param osState    what jstack prints after the nid: the OS thread's state as HotSpot records it
 *                   ("waiting on condition", "in Object.wait()", ...); null when unknown
 * @param tid        HotSpot's JavaThread address (jstack's {@code tid=0x...}); null when unknown
 * @param osPriority the OS thread's nice value (jstack's {@code os_prio}); null when unknown
 * @param started    when the OS thread started, epoch milliseconds to the kernel's clock tick (for
 *                   jstack's {@code elapsed}); null when unknown
 */
public record ThreadEntry(long id, String name, String state, List<String> flags, boolean daemon, int priority,
                          String group, long cpuNanos, long nid, boolean agent,
                          @JsonInclude(JsonInclude.Include.NON_NULL) WaitingFor waitingFor,
                          @JsonInclude(JsonInclude.Include.NON_DEFAULT) boolean virtual,
                          @JsonInclude(JsonInclude.Include.NON_NULL) Long carrierId,
                          @JsonInclude(JsonInclude.Include.NON_DEFAULT) boolean pinned,
                          @JsonInclude(JsonInclude.Include.NON_NULL) Long carrying,
                          @JsonInclude(JsonInclude.Include.NON_NULL) String osState,
                          @JsonInclude(JsonInclude.Include.NON_NULL) String tid,
                          @JsonInclude(JsonInclude.Include.NON_NULL) Integer osPriority,
                          @JsonInclude(JsonInclude.Include.NON_NULL) Long started,
                          @JsonInclude(JsonInclude.Include.NON_DEFAULT) boolean mountUnsettled) implements RunningThread {
    /** A platform thread. */
    public ThreadEntry(long id, String name, String state, List<String> flags, boolean daemon, int priority,
                       String group, long cpuNanos, long nid, boolean agent, WaitingFor waitingFor) {
        this(id, name, state, flags, daemon, priority, group, cpuNanos, nid, agent, waitingFor, false, null, false, null, null, null, null, null,
                false);
    }

    @Override
    @JsonProperty
    public String kind() {
        return "java";
    }

    @Override
    public String identity() {
        return "java " + id;
    }

    public boolean hasFlag(String flag) {
        return flags != null && flags.contains(flag);
    }

    /** This carrier thread, carrying the virtual thread with that id (null: one, not known which: mountUnsettled). */
    public ThreadEntry carrying(Long virtualThreadId) {
        return new ThreadEntry(id, name, state, flags, daemon, priority, group, cpuNanos, nid, agent, waitingFor, virtual,
                carrierId, pinned, virtualThreadId, osState, tid, osPriority, started, virtualThreadId == null);
    }

    /** This virtual thread, pinned or not. */
    public ThreadEntry pinned(boolean isPinned) {
        return new ThreadEntry(id, name, state, flags, daemon, priority, group, cpuNanos, nid, agent, waitingFor, virtual,
                carrierId, isPinned, carrying, osState, tid, osPriority, started, mountUnsettled);
    }

    /** The name, or for a virtual thread without one, {@code #id}. */
    public String displayName() {
        return virtual && (name == null || name.isEmpty()) ? "#" + id : name;
    }
}
