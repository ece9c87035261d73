package dev.jvmticli.client;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code vthreads}: the target's virtual threads. Made by {@link #of} or {@link #counts}, then told
 * what else by name: {@code VthreadsRequest.of(ids).withFrames(true).withMaxDepth(depth).withLocks(true)}.
 *
 * @param threadIds   the threads to include, or null for all
 * @param frames      with their stacks (maxDepth frames at most)
 * @param maxDepth    frames per thread at most (also the frames the lock facts are checked against)
 * @param locks       with monitors owned and waited for, and park blockers
 * @param summary     only the counts, no threads
 * @param mountedOnly only the mounted ones (to find carriers)
 * @param waitingOnly only those that may wait for a lock: blocked, in {@code Object.wait}, parked on a
 *                    blocker, or mounted (not those that sleep or park without a blocker)
 */
public record VthreadsRequest(Collection<Long> threadIds, boolean frames, int maxDepth, boolean locks, boolean summary,
                              boolean mountedOnly, boolean waitingOnly) implements AgentRequest {
    /** These virtual threads (null: all), without frames or lock facts. */
    public static VthreadsRequest of(Collection<Long> threadIds) {
        return new VthreadsRequest(threadIds, false, 1, false, false, false, false);
    }

    /** The counts of virtual threads alone. */
    public static VthreadsRequest counts() {
        return new VthreadsRequest(null, false, 1, false, true, false, false);
    }

    public VthreadsRequest withFrames(boolean with) {
        return new VthreadsRequest(threadIds, with, maxDepth, locks, summary, mountedOnly, waitingOnly);
    }

    public VthreadsRequest withMaxDepth(int depth) {
        return new VthreadsRequest(threadIds, frames, depth, locks, summary, mountedOnly, waitingOnly);
    }

    public VthreadsRequest withLocks(boolean with) {
        return new VthreadsRequest(threadIds, frames, maxDepth, with, summary, mountedOnly, waitingOnly);
    }

    public VthreadsRequest withMountedOnly(boolean only) {
        return new VthreadsRequest(threadIds, frames, maxDepth, locks, summary, only, waitingOnly);
    }

    public VthreadsRequest withWaitingOnly(boolean only) {
        return new VthreadsRequest(threadIds, frames, maxDepth, locks, summary, mountedOnly, only);
    }

    @Override
    public String command() {
        return "vthreads";
    }

    @Override
    public Map<String, Object> arguments() {
        Map<String, Object> arguments = new LinkedHashMap<>();
        if (threadIds != null) {
            arguments.put("threads", threadIds);
        }
        arguments.put("frames", frames);
        arguments.put("maxDepth", maxDepth);
        arguments.put("locks", locks);
        arguments.put("summary", summary);
        arguments.put("mountedOnly", mountedOnly);
        arguments.put("waitingOnly", waitingOnly);
        return arguments;
    }
}
