package dev.jvmticli.cli;

import dev.jvmticli.analysis.VirtualThreads;
import dev.jvmticli.client.AgentClient;
import dev.jvmticli.client.StackDump;
import dev.jvmticli.client.StackListener;
import dev.jvmticli.client.StacksRequest;
import dev.jvmticli.client.ThreadStack;
import dev.jvmticli.client.VirtualDump;
import dev.jvmticli.client.VthreadsRequest;
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
     * What a dump holds. Made by {@link #of}, then told what else by name:
     * {@code Request.of(ids, depth).withOwned(true).withVirtual(true)}.
     *
     * @param ids             the threads to include, or null for all
     * @param maxDepth        frames per thread at most
     * @param frames          whether the dump carries frames (lock facts are taken with them either way)
     * @param owned           the monitors each platform thread owns
     * @param platform        the platform threads
     * @param virtual         the virtual threads, when the target has them
     * @param virtualRequired the virtual threads, failing on a target without them
     * @param waitingOnly     only the virtual threads that may wait for a lock (see {@link VthreadsRequest#waitingOnly})
     * @param vmThreads       the JVM's own threads too (with platform threads)
     * @param synchronizers   the ownable synchronizers the platform threads own, with their frames at one
     *                        safepoint ({@link StacksRequest#synchronizers})
     */
    record Request(Collection<Long> ids, int maxDepth, boolean frames, boolean owned, boolean platform, boolean virtual,
                   boolean virtualRequired, boolean waitingOnly, boolean vmThreads, boolean synchronizers) {
        /** The platform threads with these ids (null: all), with frames, maxDepth at most each. */
        static Request of(Collection<Long> ids, int maxDepth) {
            return new Request(ids, maxDepth, true, false, true, false, false, false, false, false);
        }

        Request withFrames(boolean with) {
            return new Request(ids, maxDepth, with, owned, platform, virtual, virtualRequired, waitingOnly, vmThreads, synchronizers);
        }

        Request withOwned(boolean with) {
            return new Request(ids, maxDepth, frames, with, platform, virtual, virtualRequired, waitingOnly, vmThreads, synchronizers);
        }

        Request withVirtual(boolean with) {
            return new Request(ids, maxDepth, frames, owned, platform, with, virtualRequired, waitingOnly, vmThreads, synchronizers);
        }

        /** The kinds of threads of --virtual, --all, ...: platform, virtual, and whether virtual ones are required. */
        Request withKinds(ThreadKinds kinds) {
            return new Request(ids, maxDepth, frames, owned, kinds.platform(), kinds.virtualThreads(), kinds.virtualRequired(),
                    waitingOnly, vmThreads, synchronizers);
        }

        Request withWaitingOnly(boolean only) {
            return new Request(ids, maxDepth, frames, owned, platform, virtual, virtualRequired, only, vmThreads, synchronizers);
        }

        Request withSynchronizers(boolean with) {
            return new Request(ids, maxDepth, frames, owned, platform, virtual, virtualRequired, waitingOnly, vmThreads, with);
        }

        Request withVmThreads(boolean with) {
            return new Request(ids, maxDepth, frames, owned, platform, virtual, virtualRequired, waitingOnly, with, synchronizers);
        }
    }

    /**
     * Threads with stacks and lock facts. The dump may hold more threads than asked for: the platform
     * threads, when a virtual thread waits for a monitor whose owner only their lock facts name (filter
     * what to show with {@link ThreadKinds#shows}), and, for platform threads alone, the carriers are
     * marked with the virtual thread they carry. With {@code waitingOnly}, only the virtual threads that
     * may wait for a lock: enough for wait-for cycles and contended locks, and what keeps a JVM of 100,000
     * sleeping virtual threads quick to ask; when a monitor someone waits to enter has no owner among
     * them, every virtual thread is asked.
     */
    static StackDump collect(AgentClient client, Request request) {
        return collect(client, request, null);
    }

    /**
     * As above; when the dump is of platform threads alone, as one answer, listener (null: none)
     * takes its threads while they arrive. A dump merged from several answers is not handed to it.
     */
    static StackDump collect(AgentClient client, Request request, StackListener listener) {
        VirtualDump vthreads;
        // lock facts are checked against the frames taken with them, of which a snapshot hides a
        // virtual thread's top ones (its yield): without frames to show, they are taken whole
        VthreadsRequest virtualRequest = VthreadsRequest.of(request.ids()).withFrames(request.frames())
                .withMaxDepth(request.frames() ? request.maxDepth() : MaxDepth.LIMIT)
                .withLocks(true)
                .withWaitingOnly(request.waitingOnly());
        if (!request.virtual()) {
            vthreads = client.vthreadsIfAny(VthreadsRequest.of(null).withMountedOnly(true)).orElse(null);
        } else if (request.virtualRequired()) {
            vthreads = client.vthreads(virtualRequest);
        } else {
            vthreads = client.vthreadsIfAny(virtualRequest).orElse(null);
        }
        StacksRequest platformRequest = StacksRequest.of(request.ids(), request.maxDepth()).withFrames(request.frames())
                .withOwned(request.owned()).withSynchronizers(request.synchronizers());
        if (vthreads == null) {
            return client.stacks(platformRequest.withVmThreads(request.vmThreads() && request.platform()), listener);
        }
        boolean ownersNeeded = vthreads.threads().stream()
                .anyMatch(v -> v.waitingFor() != null && v.waitingFor().kind().equals("enter") && !v.waitingFor().hasOwner());
        // the platform threads name the carriers of mounted virtual threads
        boolean carriersNeeded = vthreads.threads().stream().anyMatch(v -> v.thread().carrierId() != null);
        StackDump platformDump = request.platform()
                ? client.stacks(StacksRequest.of(request.ids(), ownersNeeded && !request.owned() ? MaxDepth.LIMIT : request.maxDepth())
                        .withFrames(request.frames()).withOwned(request.owned() || ownersNeeded).withVmThreads(request.vmThreads())
                        .withSynchronizers(request.synchronizers()))
                : ownersNeeded || carriersNeeded ? client.stacks(StacksRequest.of(null, MaxDepth.LIMIT).withFrames(false).withOwned(ownersNeeded))
                : new StackDump(vthreads.time(), "", true, List.of());
        StackDump merged = VirtualThreads.merge(withBlockers(client, platformDump, vthreads), vthreads);
        if (request.waitingOnly() && anEntryWithoutOwner(merged)) {
            // its owner may be a virtual thread that was not asked, one that sleeps holding the monitor
            return collect(client, request.withWaitingOnly(false));
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
        return new StackDump(platform.time(), platform.lockSource(), platform.lockFactsComplete(), threads, platform.vmThreads(),
                platform.synchronizers(), platform.cpuRead());
    }

    /** The threads of the dump that the kinds show. */
    static List<ThreadStack> shown(StackDump dump, ThreadKinds kinds) {
        return dump.threads().stream().filter(t -> kinds.shows(t.thread())).toList();
    }
}
