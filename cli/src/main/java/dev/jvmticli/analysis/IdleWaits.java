package dev.jvmticli.analysis;

import dev.jvmticli.client.Frame;
import dev.jvmticli.client.ThreadStack;
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
 */
public final class IdleWaits {
    /** Class and method of frames under which a wait is idle (and getTask of any *ThreadPoolExecutor). */
    private static final Set<String> IDLE_UNDER = Set.of(
            "java.util.concurrent.ForkJoinPool.awaitWork",
            "java.lang.ref.ReferenceQueue.remove",
            "java.lang.ref.Reference.waitForReferencePendingList",
            "java.util.TimerThread.mainLoop",
            "org.eclipse.jetty.util.thread.QueuedThreadPool$Runner.idleJobPoll");

    private IdleWaits() {
    }

    /** Whether the thread waits idly: its frames pass through one of the places above. */
    public static boolean isIdle(ThreadStack thread) {
        for (Frame frame : thread.frames()) {
            if (IDLE_UNDER.contains(frame.className() + "." + frame.method())
                    || frame.method().equals("getTask") && frame.className().endsWith("ThreadPoolExecutor")) {
                return true;
            }
        }
        return false;
    }
}
