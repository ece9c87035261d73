package dev.jvmticli.cli;

import dev.jvmticli.analysis.MainWait;
import dev.jvmticli.analysis.VirtualThreads;
import dev.jvmticli.client.AgentClient;
import dev.jvmticli.client.ThreadStack;
import dev.jvmticli.client.VthreadsRequest;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The threads likely holding what a wait with no owner waits for ({@link MainWait#inside}), at one
 * instant. Each virtual thread of a dump is read at a moment of its own (a request waiting at its
 * moment may hold by now, one holding may be gone): the virtual waiters and holders are read again
 * together, at one safepoint; the platform ones stay as the dump read them.
 */
final class HoldersAtOnce {
    /** Frames beyond the deepest stack of the threads read again at once, for one that went deeper meanwhile. */
    private static final int MORE_FRAMES = 64;

    private HoldersAtOnce() {
    }

    /**
     * Those inside wait's shared frame (or the nearest deeper one, MainWait#insideOf) at one instant;
     * null when none of them is virtual or more threads wait than the agent reads at once.
     */
    static MainWait.Shared read(AgentClient client, MainWait wait) {
        List<ThreadStack> candidates = new ArrayList<>(wait.inside());
        wait.deeper().forEach(d -> candidates.addAll(d.inside()));
        if (wait.sharedFrame() == null || candidates.stream().noneMatch(t -> t.thread().virtual())) {
            return null;
        }
        Set<Long> ids = new LinkedHashSet<>();
        wait.waiters().stream().filter(t -> t.thread().virtual()).forEach(t -> ids.add(t.thread().id()));
        candidates.stream().filter(t -> t.thread().virtual()).forEach(t -> ids.add(t.thread().id()));
        if (ids.size() > VthreadsRequest.AT_ONCE_MAX) {
            return null;
        }
        // as deep as the deepest of them was, and some: the JVM takes a buffer of that depth for each thread
        int depth = Math.min(MaxDepth.DEFAULT, MORE_FRAMES + Stream.concat(wait.waiters().stream(), candidates.stream())
                .mapToInt(t -> t.frames().size()).max().orElse(0));
        List<ThreadStack> together = new ArrayList<>(candidates.stream().filter(t -> !t.thread().virtual()).distinct().toList());
        together.addAll(VirtualThreads.stacks(client.vthreads(VthreadsRequest.atOnce(ids, depth))));
        return wait.insideOf(together);
    }
}
