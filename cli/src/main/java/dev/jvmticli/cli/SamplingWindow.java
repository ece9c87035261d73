package dev.jvmticli.cli;

import dev.jvmticli.client.AgentClient;
import dev.jvmticli.failure.OutputClosed;
import java.time.Duration;

/**
 * The time a duration-based command lets its events run. Ctrl-C (or a kill with SIGTERM) ends
 * the window early instead of losing it: a shutdown hook interrupts the wait and lets the command
 * stop its session and print what was gathered before the JVM exits. Should the CLI die without
 * that, the agent still stops the session when the connection closes. A reader of standard output
 * that goes away ends the window too, and the command with {@link OutputClosed}. In the shell,
 * Ctrl-C ends the window through {@link CliContext#endWindow}. The connection is watched all the
 * while: a target that dies, or an agent detached, ends the command at once with CONNECTION_LOST.
 */
final class SamplingWindow {
    private static final long GRACE_MILLIS = 10_000;

    private SamplingWindow() {
    }

    /** Waits for duration (or Ctrl-C), then runs finish: stop the session and print the report. */
    static void run(CliContext context, AgentClient client, Duration duration, Runnable finish) {
        Thread waiter = Thread.currentThread();
        Object lock = new Object();
        boolean[] finished = {false};
        Thread hook = new Thread(() -> {
            waiter.interrupt();
            synchronized (lock) {
                long deadline = System.currentTimeMillis() + GRACE_MILLIS;
                while (!finished[0] && System.currentTimeMillis() < deadline) {
                    try {
                        lock.wait(Math.max(1, deadline - System.currentTimeMillis()));
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }
        }, "jvmti-cli stop");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            context.openWindow(waiter);
            try {
                await(client, duration);
            } catch (InterruptedException e) {
                // Ctrl-C: stop now and report what was gathered
            } catch (OutputClosed closed) {
                context.closeWindow();
                finish.run(); // the session is stopped, and its report goes where it can (a shell's > FILE)
                throw closed;
            }
            context.closeWindow();
            finish.run();
        } finally {
            context.closeWindow();
            synchronized (lock) {
                finished[0] = true;
                lock.notifyAll();
            }
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // the hook is running: it has just been told we are done
            }
        }
    }

    /** Waits out duration watching the connection and the reader of standard output; an interrupt (Ctrl-C) ends it early. */
    private static void await(AgentClient client, Duration duration) throws InterruptedException {
        long deadline = System.nanoTime() + duration.toNanos();
        long left;
        while ((left = (deadline - System.nanoTime()) / 1_000_000L) > 0) {
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
            client.pause(Duration.ofMillis(Math.min(left, StandardOutput.CHECK_MILLIS)));
            StandardOutput.checkReader();
        }
    }
}
