package dev.jvmticli.analysis;

import dev.jvmticli.client.Frame;
import dev.jvmticli.client.ThreadStack;
import java.util.List;
import java.util.Set;

/**
 * Waits that are a thread's rest, not a hold-up: a pool's worker waiting for its next task (in
 * {@code ThreadPoolExecutor.getTask}, the JDK's or a server's copy of it such as Tomcat's, whatever
 * queue it takes from: a {@code LinkedBlockingQueue}, a {@code SynchronousQueue}, a scheduled
 * pool's delay queue; Jetty's {@code QueuedThreadPool} in {@code idleJobPoll}), a fork-join worker or a virtual
 * threads' carrier waiting for work ({@code ForkJoinPool.awaitWork}), the Finalizer and the
 * cleaners waiting for references to process, a {@code Timer} waiting for its next task. Told
 * by a frame the wait is under, so that the same queue's {@code take} called by application code (a
 * request waiting for a pooled connection) is not idle.
 *
 * <p>A platform thread with a loop of its own is told by the shape of its stack instead (Kafka's
 * request handlers in {@code RequestChannel.receiveRequest}, its purgatories' reapers, its group
 * coordinator's event processors in {@code EventAccumulator.take}): it waits in a queue's
 * {@code take} or {@code poll} (a blocking queue of the JDK's, or the first method of its own code
 * under the JDK's parking), at most {@value #RECEIVE_FRAMES} methods of its own between that call
 * and the {@code run} its thread started with, and it holds no monitor. What a thread waits for in
 * its own {@code run}, a frame or two down, is its next piece of work; a request waiting for a reply
 * or a pooled connection waits deeper, under the code that handles it. A virtual thread runs one
 * task, not a loop of them: its waits are never idle by this rule.
 */
public final class IdleWaits {
    /** Class and method of frames under which a wait is idle (and getTask of any *ThreadPoolExecutor). */
    private static final Set<String> IDLE_UNDER = Set.of(
            "java.util.concurrent.ForkJoinPool.awaitWork",
            "java.lang.ref.ReferenceQueue.remove",
            "java.lang.ref.Reference.waitForReferencePendingList",
            "java.util.TimerThread.mainLoop",
            "org.eclipse.jetty.util.thread.QueuedThreadPool$Runner.idleJobPoll");

    /** The methods of the JDK's blocking queues and deques that wait for an element. */
    private static final Set<String> TAKING = Set.of("take", "poll", "takeFirst", "takeLast", "pollFirst", "pollLast");

    /** How many of its own methods a worker's loop may call through to reach its queue (Kafka's reapers: doWork, advanceClock). */
    private static final int RECEIVE_FRAMES = 2;

    private IdleWaits() {
    }

    /** Whether the thread waits idly: its frames pass through one of the places above, or it waits for work in its own loop. */
    public static boolean isIdle(ThreadStack thread) {
        return isUnderIdleFrame(thread.frames()) || !thread.thread().virtual() && !thread.unsettled() && thread.locked().isEmpty()
                && !thread.truncated() && waitsForWorkInItsLoop(thread.frames());
    }

    /**
     * Whether a wait seen only by its stack (a park recorded over time, whose thread's monitors are not
     * known) is idle: under one of the places above, or, for a platform thread's whole stack, in its
     * own loop's queue.
     */
    public static boolean isIdleWait(List<Frame> frames, boolean virtual, boolean truncated) {
        return isUnderIdleFrame(frames) || !virtual && !truncated && waitsForWorkInItsLoop(frames);
    }

    private static boolean isUnderIdleFrame(List<Frame> frames) {
        for (Frame frame : frames) {
            if (IDLE_UNDER.contains(frame.className() + "." + frame.method())
                    || frame.method().equals("getTask") && frame.className().endsWith("ThreadPoolExecutor")) {
                return true;
            }
        }
        return false;
    }

    private static boolean waitsForWorkInItsLoop(List<Frame> frames) {
        int take = 0;
        while (take < frames.size() && !isQueueTake(frames.get(take))) {
            if (!isJdk(frames.get(take))) {
                return false; // its own code waits, not in a queue's take
            }
            take++;
        }
        while (take + 1 < frames.size() && isQueueTake(frames.get(take + 1))) {
            take++; // a deque's take calls its takeFirst
        }
        int run = take + 1;
        while (run < frames.size() && !frames.get(run).method().equals("run")) {
            if (isJdk(frames.get(run)) || run - take > RECEIVE_FRAMES) {
                return false;
            }
            run++;
        }
        if (run >= frames.size() || isJdk(frames.get(run))) {
            return false;
        }
        return frames.subList(run + 1, frames.size()).stream().allMatch(IdleWaits::isThreadStart);
    }

    /** A queue's take or poll: a JDK blocking queue's, or any method of those names of the program's own (the first above the JDK's). */
    private static boolean isQueueTake(Frame f) {
        String c = f.className();
        return TAKING.contains(f.method()) && (!isJdk(f)
                || c.startsWith("java.util.concurrent.") && c.indexOf('$') < 0 && (c.endsWith("Queue") || c.endsWith("Deque")));
    }

    /** The frames a thread starts its task with: Thread.run (and runWith), a virtual thread's run and its continuation. */
    private static boolean isThreadStart(Frame f) {
        String c = f.className();
        return c.equals("java.lang.Thread") || c.equals("java.lang.VirtualThread") || c.startsWith("jdk.internal.vm.Continuation");
    }

    private static boolean isJdk(Frame f) {
        String c = f.className();
        return c.startsWith("java.") || c.startsWith("jdk.") || c.startsWith("sun.");
    }
}
