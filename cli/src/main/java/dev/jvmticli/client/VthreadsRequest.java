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
 * @param atOnce      the states and frames of the threads listed (threadIds, at most AT_ONCE_MAX) from one
 *                    safepoint, what they did at the same instant, instead of a moment of each;
 *                    with frames, without locks, carriers or summary
 */
public record VthreadsRequest(Collection<Long> threadIds, boolean frames, int maxDepth, boolean locks, boolean summary,
                              boolean mountedOnly, boolean waitingOnly, boolean atOnce) implements AgentRequest {
    /** The most threads an atOnce request reads. */
    public static final int AT_ONCE_MAX = 4096;

    /** These virtual threads (null: all), without frames or lock facts. */
    public static VthreadsRequest of(Collection<Long> threadIds) {
        return new VthreadsRequest(threadIds, false, 1, false, false, false, false, false);
    }

    /** The counts of virtual threads alone. */
    public static VthreadsRequest counts() {
        return new VthreadsRequest(null, false, 1, false, true, false, false, false);
    }

    public VthreadsRequest withFrames(boolean with) {
        return new VthreadsRequest(threadIds, with, maxDepth, locks, summary, mountedOnly, waitingOnly, atOnce);
    }

    public VthreadsRequest withMaxDepth(int depth) {
        return new VthreadsRequest(threadIds, frames, depth, locks, summary, mountedOnly, waitingOnly, atOnce);
    }

    public VthreadsRequest withLocks(boolean with) {
        return new VthreadsRequest(threadIds, frames, maxDepth, with, summary, mountedOnly, waitingOnly, atOnce);
    }

    public VthreadsRequest withMountedOnly(boolean only) {
        return new VthreadsRequest(threadIds, frames, maxDepth, locks, summary, only, waitingOnly, atOnce);
    }

    public VthreadsRequest withWaitingOnly(boolean only) {
        return new VthreadsRequest(threadIds, frames, maxDepth, locks, summary, mountedOnly, only, atOnce);
    }

    /** These threads' states and frames at one instant (see atOnce). */
    public static VthreadsRequest atOnce(Collection<Long> threadIds, int maxDepth) {
        return new VthreadsRequest(threadIds, true, maxDepth, false, false, false, false, true);
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
        if (atOnce) {
            arguments.put("atOnce", true);
        }
        return arguments;
    }
}
