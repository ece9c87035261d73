package dev.jvmticli.cli;

import dev.jvmticli.analysis.VirtualThreads;
import dev.jvmticli.client.AgentClient;
import dev.jvmticli.client.StackDump;
import dev.jvmticli.client.StackListener;
import dev.jvmticli.client.ThreadStack;
import dev.jvmticli.client.VirtualDump;
import dev.jvmticli.client.WaitingFor;
import java.util.HashMap;
import java.util.Map;
import java.util.Collection;
import java.util.List;

/** Stack dumps of platform threads, virtual threads or both, merged into one {@link StackDump}. */
final class Dumps {
    private Dumps() {
    }

    /**
     * Threads with stacks and lock facts. The dump may hold more threads than asked for: the platform
     * threads, when a virtual thread waits for a monitor whose owner only their lock facts name (filter
     * what to show with {@link ThreadKinds#shows}), and, for platform threads alone, the carriers are
     * marked with the virtual thread they carry. With {@code waitingOnly}, only the virtual threads that
     * may wait for a lock (see {@link AgentClient#vthreads}): enough for wait-for cycles and contended
     * locks, and what keeps a JVM of 100,000 sleeping virtual threads quick to ask; when a monitor someone
     * waits to enter has no owner among them, every virtual thread is asked. With vmThreads (and
     * platform threads), the JVM's own threads too.
     */
    static StackDump collect(AgentClient client, Collection<Long> ids, int maxDepth, boolean frames, boolean owned,
                             boolean platform, boolean virtual, boolean virtualRequired, boolean waitingOnly,
                             boolean vmThreads) {
        return collect(client, ids, maxDepth, frames, owned, platform, virtual, virtualRequired, waitingOnly, vmThreads, null);
    }

    /**
     * As above; when the dump is of platform threads alone, as one answer, listener (null: none)
     * takes its threads while they arrive. A dump merged from several answers is not handed to it.
     */
    static StackDump collect(AgentClient client, Collection<Long> ids, int maxDepth, boolean frames, boolean owned,
                             boolean platform, boolean virtual, boolean virtualRequired, boolean waitingOnly,
                             boolean vmThreads, StackListener listener) {
        VirtualDump vthreads;
        // lock facts are checked against the frames taken with them, of which a snapshot hides a
        // virtual thread's top ones (its yield): without frames to show, they are taken whole
        int virtualDepth = frames ? maxDepth : MaxDepth.LIMIT;
        if (!virtual) {
            vthreads = client.vthreadsIfAny(null, false, 1, false, false, true, false).orElse(null);
        } else if (virtualRequired) {
            vthreads = client.vthreads(ids, frames, virtualDepth, true, false, false, waitingOnly);
        } else {
            vthreads = client.vthreadsIfAny(ids, frames, virtualDepth, true, false, false, waitingOnly).orElse(null);
        }
        if (vthreads == null) {
            return client.stacks(ids, maxDepth, frames, owned, vmThreads && platform, listener);
        }
        boolean ownersNeeded = vthreads.threads().stream()
                .anyMatch(v -> v.waitingFor() != null && v.waitingFor().kind().equals("enter") && !v.waitingFor().hasOwner());
        // the platform threads name the carriers of mounted virtual threads
        boolean carriersNeeded = vthreads.threads().stream().anyMatch(v -> v.thread().carrierId() != null);
        StackDump platformDump = platform
                ? client.stacks(ids, ownersNeeded && !owned ? MaxDepth.LIMIT : maxDepth, frames, owned || ownersNeeded, vmThreads)
                : ownersNeeded || carriersNeeded ? client.stacks(null, MaxDepth.LIMIT, false, ownersNeeded, false)
                : new StackDump(vthreads.time(), "", true, List.of());
        StackDump merged = VirtualThreads.merge(withBlockers(client, platformDump, vthreads), vthreads);
        if (waitingOnly && anEntryWithoutOwner(merged)) {
            // its owner may be a virtual thread that was not asked, one that sleeps holding the monitor
            return collect(client, ids, maxDepth, frames, owned, platform, virtual, virtualRequired, false, vmThreads);
        }
        return merged;
    }

    private static boolean anEntryWithoutOwner(StackDump dump) {
        return dump.threads().stream().anyMatch(t -> !t.unsettled() && t.waitingFor() != null
                && t.waitingFor().kind().equals("enter") && !t.waitingFor().hasOwner());
    }

    /**
     * ThreadMXBean names nothing for a platform thread blocked on a monitor that an unmounted virtual
     * thread owns; the thread snapshot of JDK 25+ does (the "snapshot" lock source).
     */
    private static StackDump withBlockers(AgentClient client, StackDump platform, VirtualDump vthreads) {
        List<Long> unknown = platform.threads().stream()
                .filter(t -> t.thread().state().equals("BLOCKED") && t.waitingFor() == null && !t.unsettled())
                .map(t -> t.thread().id())
                .toList();
        // where the platform threads' facts are snapshots already, another would only be of another moment
        if (unknown.isEmpty() || !vthreads.lockSource().equals("snapshot") || platform.lockSource().equals("snapshot")) {
            return platform;
        }
        Map<Long, WaitingFor> found = new HashMap<>();
        client.blockers(unknown).threads().forEach(b -> found.put(b.id(), b.waitingFor()));
        List<ThreadStack> threads = platform.threads().stream()
                .map(t -> found.containsKey(t.thread().id()) && t.waitingFor() == null ? t.waiting(found.get(t.thread().id())) : t)
                .toList();
        return new StackDump(platform.time(), platform.lockSource(), platform.lockFactsComplete(), threads, platform.vmThreads());
    }

    /** The threads of the dump that the kinds show. */
    static List<ThreadStack> shown(StackDump dump, ThreadKinds kinds) {
        return dump.threads().stream().filter(t -> kinds.shows(t.thread())).toList();
    }
}
