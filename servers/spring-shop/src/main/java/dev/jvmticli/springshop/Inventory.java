package dev.jvmticli.springshop;

import java.util.concurrent.atomic.AtomicLong;
import org.springframework.stereotype.Component;

/** One shared monitor every /sync request holds 5 ms: how long each waited to enter it, it measures itself. */
@Component
public class Inventory {
    /** The monitor: a class of its own, so that a lock table names it. */
    static final class Stock {
    }

    private final Stock stock = new Stock();
    private final AtomicLong enters = new AtomicLong();
    private final AtomicLong waitedNanos = new AtomicLong();
    private long reserved;

    public long reserve() throws InterruptedException {
        long asked = System.nanoTime();
        synchronized (stock) {
            waitedNanos.addAndGet(System.nanoTime() - asked);
            enters.incrementAndGet();
            Thread.sleep(5);
            return ++reserved;
        }
    }

    public long enters() {
        return enters.get();
    }

    public long waitedNanos() {
        return waitedNanos.get();
    }
}
