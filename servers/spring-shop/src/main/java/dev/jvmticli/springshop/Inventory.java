package dev.jvmticli.springshop;

import java.util.concurrent.atomic.AtomicLong;
import org.springframework.stereotype.Component;

/**
 * One shared monitor every /sync request holds 5 ms: how long each waited to enter it, it measures
 * itself, apart for the enters that found it held when they set out (those are the ones that wait).
 */
@Component
public class Inventory {
    /** The monitor: a class of its own, so that a lock table names it. */
    static final class Stock {
    }

    private final Stock stock = new Stock();
    private final AtomicLong enters = new AtomicLong();
    private final AtomicLong waitedNanos = new AtomicLong();
    private final AtomicLong contendedEnters = new AtomicLong();
    private final AtomicLong contendedWaitedNanos = new AtomicLong();
    private volatile boolean held;
    private long reserved;

    public long reserve() throws InterruptedException {
        boolean contended = held;
        long asked = System.nanoTime();
        synchronized (stock) {
            held = true;
            long waited = System.nanoTime() - asked;
            waitedNanos.addAndGet(waited);
            enters.incrementAndGet();
            if (contended) {
                contendedWaitedNanos.addAndGet(waited);
                contendedEnters.incrementAndGet();
            }
            try {
                Thread.sleep(5);
                return ++reserved;
            } finally {
                held = false;
            }
        }
    }

    public long enters() {
        return enters.get();
    }

    public long waitedNanos() {
        return waitedNanos.get();
    }

    public long contendedEnters() {
        return contendedEnters.get();
    }

    public long contendedWaitedNanos() {
        return contendedWaitedNanos.get();
    }
}
