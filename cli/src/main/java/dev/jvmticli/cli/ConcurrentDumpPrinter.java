package dev.jvmticli.cli;

import dev.jvmticli.client.Hello;
import dev.jvmticli.client.StackListener;
import dev.jvmticli.client.ThreadStack;
import dev.jvmticli.client.VmThread;
import dev.jvmticli.render.ThreadDumpText;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * Prints a thread dump in jstack's format while its answer is still being read: the reading
 * thread hands the threads over in batches, and a thread of its own renders and writes them, so
 * that reading one part of a large dump and printing the part before overlap. Platform threads
 * alone: a carrier's line names the virtual thread it carries, which only a merged dump knows.
 */
final class ConcurrentDumpPrinter implements StackListener, AutoCloseable {
    /** Threads a hand-over carries: few enough that printing starts early, enough that it costs little. */
    private static final int BATCH = 64;
    private static final List<ThreadStack> END = List.of();

    private final PrintWriter out;
    private final Hello.Jvm jvm;
    private final ThreadKinds kinds;
    /** Unbounded, so that the reader never waits: it holds no more than the dump the reader keeps anyway. */
    private final BlockingQueue<List<ThreadStack>> handedOver = new LinkedBlockingQueue<>();
    private List<ThreadStack> batch = new ArrayList<>(BATCH);
    private Thread printing;
    private volatile RuntimeException failure;

    ConcurrentDumpPrinter(PrintWriter out, Hello.Jvm jvm, ThreadKinds kinds) {
        this.out = out;
        this.jvm = jvm;
        this.kinds = kinds;
    }

    @Override
    public void started(long time, List<VmThread> vmThreads) {
        printing = new Thread(() -> print(time, vmThreads), "jvmti-cli printer");
        printing.setDaemon(true);
        printing.start();
    }

    @Override
    public void thread(ThreadStack thread) {
        if (kinds.shows(thread.thread())) {
            batch.add(thread);
            if (batch.size() == BATCH) {
                handOver();
            }
        }
    }

    private void handOver() {
        handedOver.add(batch);
        batch = new ArrayList<>(BATCH);
    }

    private void print(long time, List<VmThread> vmThreads) {
        try {
            ThreadDumpText.Printer printer = new ThreadDumpText.Printer(out, jvm, time, vmThreads, Map.of(), null);
            for (List<ThreadStack> threads = handedOver.take(); threads != END; threads = handedOver.take()) {
                threads.forEach(printer::thread);
            }
            printer.finish();
        } catch (RuntimeException e) {
            failure = e; // a closed output: the reader still reads to the end of the answer, and finish throws it
        } catch (InterruptedException e) {
            // the command was cancelled: what it would print is dropped anyway
        }
    }

    /**
     * Waits until every thread handed over is printed, and the JVM's own threads after them.
     * Returns false when the answer never started (nothing was printed here); throws what the
     * printing thread met (a closed output).
     */
    boolean finish() {
        if (printing == null) {
            return false;
        }
        handOver();
        handedOver.add(END);
        try {
            printing.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // cancelled: the output is shut, nothing more to wait for
            return true;
        }
        if (failure != null) {
            throw failure;
        }
        return true;
    }

    /** Ends the printing thread if finish was not reached (the answer broke off). */
    @Override
    public void close() {
        if (printing != null && printing.isAlive()) {
            printing.interrupt();
        }
    }
}
