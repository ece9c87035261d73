package dev.jvmticli.cli;

import dev.jvmticli.attach.TargetProcess;
import dev.jvmticli.client.AgentClient;
import dev.jvmticli.client.AgentConnector;
import java.io.PrintWriter;
import java.time.Duration;

/** What every command of one CLI run shares: where output goes and how to reach a target. */
public class CliContext {
    private final PrintWriter out;
    private final PrintWriter err;
    private Duration timeout = Duration.ofSeconds(10);
    private boolean verbose;
    private Thread windowWaiter;   // the thread waiting out a sampling window, or null; guarded by this
    private boolean windowEnded;   // guarded by this

    public CliContext(PrintWriter out, PrintWriter err) {
        this.out = out;
        this.err = err;
    }

    /** Another output, with the timeout and verbosity of settings. */
    protected CliContext(PrintWriter out, PrintWriter err, CliContext settings) {
        this(out, err);
        this.timeout = settings.timeout;
        this.verbose = settings.verbose;
    }

    public PrintWriter out() {
        return out;
    }

    public PrintWriter err() {
        return err;
    }

    public Duration timeout() {
        return timeout;
    }

    void timeout(Duration timeout) {
        this.timeout = timeout;
    }

    public boolean verbose() {
        return verbose;
    }

    void verbose(boolean verbose) {
        this.verbose = verbose;
    }

    /**
     * Ends the sampling window open in this context early, as Ctrl-C does in the shell: the command
     * goes on to stop its session and report. False when no window is open.
     */
    public synchronized boolean endWindow() {
        if (windowWaiter == null || windowEnded) {
            return windowWaiter != null;
        }
        windowEnded = true;
        windowWaiter.interrupt();
        return true;
    }

    synchronized void openWindow(Thread waiter) {
        windowWaiter = waiter;
        windowEnded = false;
    }

    /** Closes the window; an interrupt endWindow sent is consumed, so it cannot reach the report's I/O. */
    synchronized void closeWindow() {
        if (windowEnded) {
            Thread.interrupted();
        }
        windowWaiter = null;
        windowEnded = false;
    }

    /** A connection to the target's agent, loading the agent first if it is not resident. */
    public AgentClient connect(TargetProcess target) {
        return new AgentConnector(timeout).open(target);
    }
}
