package dev.jvmticli.targets;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;

/** Threads ended by an exception nothing catches, run one after another, for targets that know how many escaped. */
final class Escapers {
    private Escapers() {
    }

    /**
     * Starts and joins the threads unstarted makes (0, 1, ... threads - 1), one at a time; how many
     * of them their uncaught exception handler saw ended by an exception of the class escaping.
     */
    static long count(int threads, IntFunction<Thread> unstarted, Class<? extends Throwable> escaping) {
        AtomicLong escaped = new AtomicLong();
        for (int i = 0; i < threads; i++) {
            Thread escaper = unstarted.apply(i);
            escaper.setUncaughtExceptionHandler((t, e) -> {
                if (escaping.isInstance(e)) {
                    escaped.incrementAndGet();
                }
            });
            escaper.start();
            try {
                escaper.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        return escaped.get();
    }
}
