package dev.jvmticli.cli;

import dev.jvmticli.attach.TargetProcess;
import dev.jvmticli.client.AgentClient;
import dev.jvmticli.client.AgentConnector;
import dev.jvmticli.failure.CliFailure;
import dev.jvmticli.failure.ExitCode;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Optional;

/** What every command of one CLI run shares: where output goes and how to reach a target. */
public class CliContext {
    private static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);

    private final PrintWriter out;
    private final PrintWriter err;
    private final ShellLauncher shell;
    private Duration givenTimeout; // --timeout, or null when not given
    private boolean verbose;
    private Thread windowWaiter;   // the thread waiting out a sampling window, or null; guarded by this
    private boolean windowEnded;   // guarded by this

    /** A context in which shell and {@code jvmti-cli <pid>} open the shell through shell. */
    public CliContext(PrintWriter out, PrintWriter err, ShellLauncher shell) {
        this.out = out;
        this.err = err;
        this.shell = shell;
    }

    /** A context of commands alone, for the model and the completion script: the shell cannot be opened from it. */
    public CliContext(PrintWriter out, PrintWriter err) {
        this(out, err, (context, target, commands) -> {
            throw new CliFailure(ExitCode.USAGE, "the shell cannot be opened from here");
        });
    }

    /** Another output, with the timeout, verbosity and shell of settings. */
    protected CliContext(PrintWriter out, PrintWriter err, CliContext settings) {
        this(out, err, settings.shell);
        this.givenTimeout = settings.givenTimeout;
        this.verbose = settings.verbose;
    }

    public PrintWriter out() {
        return out;
    }

    public PrintWriter err() {
        return err;
    }

    /** How long to wait for the attach and for each answer: --timeout, else 10 s. */
    public Duration timeout() {
        return givenTimeout == null ? DEFAULT_TIMEOUT : givenTimeout;
    }

    /** --timeout when it was given; a command whose answer takes as long as the heap is big has its own default. */
    public Optional<Duration> givenTimeout() {
        return Optional.ofNullable(givenTimeout);
    }

    void timeout(Duration timeout) {
        this.givenTimeout = timeout;
    }

    /** Opens the shell: the application's, handed down (see {@link ShellLauncher}). */
    public ShellLauncher shell() {
        return shell;
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
        return new AgentConnector(timeout()).open(target);
    }

    /** A connection to the agent of the target the option names, checked to be a JVM first. */
    public AgentClient connect(TargetOption target) {
        return connect(target.resolve());
    }
}
